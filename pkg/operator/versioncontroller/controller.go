// Package versioncontroller reports the operator's version on the
// ClusterOperator only once every operand has rolled out at that version, as
// the cluster-version operator expects during an upgrade.
package versioncontroller

import (
	"context"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
)

// OperandName is the name of the version the CVO waits for.
const OperandName = "operator"

type controller struct {
	operatorClient  v1helpers.OperatorClient
	versionRecorder status.VersionGetter
	version         string
	requiredPrefix  []string
}

// New returns a controller that sets version "operator" once no condition
// says that something is still progressing or unavailable, and every stack
// controller named in stackPrefixes has reported its Available condition.
func New(operatorClient v1helpers.OperatorClient, versionRecorder status.VersionGetter, version string,
	stackPrefixes []string, recorder events.Recorder) factory.Controller {
	c := &controller{operatorClient: operatorClient, versionRecorder: versionRecorder, version: version, requiredPrefix: stackPrefixes}
	return factory.New().
		WithInformers(operatorClient.Informer()).
		WithSync(c.sync).
		ToController("OperatorVersion", recorder)
}

func (c *controller) sync(ctx context.Context, _ factory.SyncContext) error {
	if c.versionRecorder.GetVersions()[OperandName] == c.version {
		return nil
	}
	spec, st, _, err := c.operatorClient.GetOperatorState()
	if err != nil {
		return err
	}
	if spec.ManagementState != operatorv1.Managed && spec.ManagementState != operatorv1.Removed {
		return nil
	}
	if RolledOut(st.Conditions, c.requiredPrefix) {
		c.versionRecorder.SetVersion(OperandName, c.version)
	}
	return nil
}

// RolledOut is true when every stack has reported availability and nothing
// is progressing or unavailable.
func RolledOut(conditions []operatorv1.OperatorCondition, stackPrefixes []string) bool {
	for _, prefix := range stackPrefixes {
		if v1helpers.FindOperatorCondition(conditions, prefix+operatorv1.OperatorStatusTypeAvailable) == nil {
			return false
		}
	}
	for _, cond := range conditions {
		switch {
		case strings.HasSuffix(cond.Type, operatorv1.OperatorStatusTypeProgressing) && cond.Status != operatorv1.ConditionFalse:
			return false
		case strings.HasSuffix(cond.Type, operatorv1.OperatorStatusTypeAvailable) && cond.Status != operatorv1.ConditionTrue:
			return false
		}
	}
	return true
}
