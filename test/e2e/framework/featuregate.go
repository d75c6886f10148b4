package framework

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/openshift/cluster-node-operator/pkg/features"
)

// WriteFeatureGateStatus plays the cluster-config operator's
// FeatureGateController (featuregate_controller.go at 6b7696e7): FeatureGate
// cluster's status entry for version goes first, the others kept; it lists
// CustomNoUpgrade's gates only (docs/api.md, "Feature gates").
func WriteFeatureGateStatus(ctx context.Context, cfg *rest.Config, version string) error {
	fgs := configclient.NewForConfigOrDie(cfg).ConfigV1().FeatureGates()
	fg, err := fgs.Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("FeatureGate cluster (installed by hack/local-cluster.sh): %w", err)
	}
	entry := configv1.FeatureGateDetails{Version: version, Enabled: []configv1.FeatureGateAttributes{}, Disabled: []configv1.FeatureGateAttributes{}}
	if custom := fg.Spec.CustomNoUpgrade; fg.Spec.FeatureSet == configv1.CustomNoUpgrade && custom != nil {
		for _, g := range custom.Enabled {
			entry.Enabled = append(entry.Enabled, configv1.FeatureGateAttributes{Name: g})
		}
		for _, g := range custom.Disabled {
			entry.Disabled = append(entry.Disabled, configv1.FeatureGateAttributes{Name: g})
		}
	}
	entries := []configv1.FeatureGateDetails{entry}
	for _, e := range fg.Status.FeatureGates {
		if e.Version != version {
			entries = append(entries, e)
		}
	}
	if reflect.DeepEqual(fg.Status.FeatureGates, entries) {
		return nil
	}
	fg.Status.FeatureGates = entries
	_, err = fgs.UpdateStatus(ctx, fg, metav1.UpdateOptions{})
	return err
}

// SetFeatureSet gives FeatureGate cluster the feature set (and, for
// CustomNoUpgrade, the gates to enable) with the status entry of version,
// and restores the previous spec when the test ends. An administrator cannot
// leave TechPreviewNoUpgrade, DevPreviewNoUpgrade or CustomNoUpgrade (the
// CRD's rules); the test world replaces the object instead.
func SetFeatureSet(t testing.TB, cfg *rest.Config, set configv1.FeatureSet, version string, enabled ...configv1.FeatureGateName) {
	t.Helper()
	ctx := Context(t, time.Minute)
	fgs := configclient.NewForConfigOrDie(cfg).ConfigV1().FeatureGates()
	old, err := fgs.Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("FeatureGate cluster: %v", err)
	}
	spec := configv1.FeatureGateSpec{FeatureGateSelection: configv1.FeatureGateSelection{FeatureSet: set}}
	if set == configv1.CustomNoUpgrade {
		spec.CustomNoUpgrade = &configv1.CustomFeatureGates{Enabled: enabled}
	}
	replace(t, cfg, spec, version)
	t.Cleanup(func() { replace(t, cfg, old.Spec, version) })
}

// replace deletes FeatureGate cluster and creates it with spec, then writes
// its status for version.
func replace(t testing.TB, cfg *rest.Config, spec configv1.FeatureGateSpec, version string) {
	t.Helper()
	ctx := Context(t, time.Minute)
	fgs := configclient.NewForConfigOrDie(cfg).ConfigV1().FeatureGates()
	if err := fgs.Delete(ctx, "cluster", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("deleting FeatureGate cluster: %v", err)
	}
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := fgs.Create(ctx, &configv1.FeatureGate{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: spec}, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("creating FeatureGate cluster: %v", err)
	}
	if err := WriteFeatureGateStatus(ctx, cfg, version); err != nil {
		t.Fatal(err)
	}
}

// ClusterFeatureSet is FeatureGate cluster's feature set; Default where it
// is missing, as for the CVO.
func ClusterFeatureSet(t testing.TB, cfg *rest.Config) features.FeatureSet {
	t.Helper()
	fg, err := configclient.NewForConfigOrDie(cfg).ConfigV1().FeatureGates().Get(Context(t, time.Minute), "cluster", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "Default"
	}
	if err != nil {
		t.Fatalf("FeatureGate cluster: %v", err)
	}
	return features.Of(fg.Spec.FeatureSet)
}
