package operator

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configinformersv1 "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	"github.com/openshift/library-go/pkg/operator/configobserver/featuregates"
	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/openshift/cluster-node-operator/pkg/features"
)

// versionPlaceholder is the operator version of a build the release tooling
// has not stamped; the accessor then takes the version from ClusterVersion.
const versionPlaceholder = "0.0.1-snapshot"

// featureGateTimeout bounds the wait for the FeatureGate status of the
// operator's version; the process then fails and is restarted.
const featureGateTimeout = time.Minute

// newFeatureGateAccess is library-go's feature gate accessor for the
// operator's version. Its default reaction to a change of the gates, once
// observed, is to exit: the operator then starts again on the new gates, as
// OpenShift operators do.
func newFeatureGateAccess(operatorVersion string, featureGates configinformersv1.FeatureGateInformer,
	clusterVersions configinformersv1.ClusterVersionInformer, recorder events.Recorder) featuregates.FeatureGateAccess {
	return featuregates.NewFeatureGateAccess(operatorVersion, versionPlaceholder, clusterVersions, featureGates, recorder)
}

// waitForFeatureGates waits until the accessor has read the gates of the
// operator's version, and returns them with the cluster's feature set.
func waitForFeatureGates(ctx context.Context, access featuregates.FeatureGateAccess, featureGates configinformersv1.FeatureGateInformer) (featuregates.FeatureGate, features.FeatureSet, error) {
	select {
	case <-access.InitialFeatureGatesObserved():
	case <-ctx.Done():
		return nil, "", ctx.Err()
	case <-time.After(featureGateTimeout):
		return nil, "", fmt.Errorf("no feature gates for this operator's version in featuregates.config.openshift.io/cluster after %s", featureGateTimeout)
	}
	gates, err := access.CurrentFeatureGates()
	if err != nil {
		return nil, "", err
	}
	fg, err := featureGates.Lister().Get("cluster")
	if err != nil {
		return nil, "", err
	}
	return gates, features.Of(fg.Spec.FeatureSet), nil
}

// gateEnabled decides whether one of the operator's gates is on. The
// FeatureGate's status decides where it lists the gate (the
// cluster-config operator lists every gate openshift/api registers, and in
// CustomNoUpgrade those the administrator names). Our gates are not
// registered there, so elsewhere the feature set decides, as the CRD
// manifest the CVO applied for it does: the operator acts on exactly what
// the API serves.
func gateEnabled(gates featuregates.FeatureGate, set features.FeatureSet, gate configv1.FeatureGateName) bool {
	if slices.Contains(gates.KnownFeatures(), gate) {
		return gates.Enabled(gate)
	}
	return features.EnabledIn(gate, set)
}

// exitOnFeatureSetChange ends the process when FeatureGate cluster's
// spec.featureSet moves away from the one the operator started with (the
// CVO does the same): a gate decided by the feature set may have changed
// without any change of the status the accessor follows.
func exitOnFeatureSetChange(featureGates configinformersv1.FeatureGateInformer, started features.FeatureSet, exit func()) error {
	check := func(obj any) {
		if now, changed := featureSetChanged(obj, started); changed {
			klog.Infof("FeatureGate cluster's feature set changed from %s to %s: exiting to start again with it", started, now)
			exit()
		}
	}
	_, err := featureGates.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    check,
		UpdateFunc: func(_, obj any) { check(obj) },
	})
	return err
}

// featureSetChanged reports the feature set of obj when it is FeatureGate
// cluster with another feature set than started.
func featureSetChanged(obj any, started features.FeatureSet) (features.FeatureSet, bool) {
	fg, ok := obj.(*configv1.FeatureGate)
	if !ok || fg.Name != "cluster" {
		return "", false
	}
	now := features.Of(fg.Spec.FeatureSet)
	return now, now != started
}

// exitForNewGates is the process's reaction to a change of its gates.
func exitForNewGates() { os.Exit(0) }
