package nmstate

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/cluster-node-operator/bindata"
)

func TestEveryManifestIsUsedAndLabelled(t *testing.T) {
	names, err := bindata.Names("nmstate")
	require.NoError(t, err)
	used := map[string]bool{crdFile: true, deploymentFile: true, crFile: true}
	for _, f := range staticFiles {
		used[f] = true
	}
	for _, name := range names {
		assert.True(t, used[name], "%s is embedded but never applied", name)
		assert.Equal(t, StackLabelValue, manifest(t, name).GetLabels()[StackLabel],
			"%s lacks the label that lets removal tell the stack's objects from others'", name)
	}
}

// TestDeploymentFollowsThePlatformConventions: what no e2e test sees of the
// NMState operator's Deployment (kwok runs no container, and its namespace
// is privileged): one container, logs as the termination message, and the
// restricted security context. Its placement, priority, ServiceAccount,
// requests and environment are proven live by TestNMState
// (testBareMetalDeployedByDefault; testOperandDeploysItsHandler, whose
// NMState operator double runs with the Deployment's identity and
// environment, and checks the images it passes on).
func TestDeploymentFollowsThePlatformConventions(t *testing.T) {
	d, err := readDeployment(imagesFrom(testImages))
	require.NoError(t, err)
	require.Len(t, d.Spec.Template.Spec.Containers, 1)
	c := d.Spec.Template.Spec.Containers[0]
	assert.Equal(t, corev1.TerminationMessageFallbackToLogsOnError, c.TerminationMessagePolicy)
	require.NotNil(t, c.SecurityContext)
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.True(t, *c.SecurityContext.RunAsNonRoot)
	assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	assert.Equal(t, []corev1.Capability{"ALL"}, c.SecurityContext.Capabilities.Drop)
}

func TestRelatedObjectsIncludeTheNMStateCR(t *testing.T) {
	related, err := relatedObjects()
	require.NoError(t, err)
	assert.Contains(t, related, configv1.ObjectReference{Group: "nmstate.io", Resource: "nmstates", Name: "nmstate"})
	assert.Contains(t, related, configv1.ObjectReference{Group: "apps", Resource: "deployments", Namespace: Namespace, Name: DeploymentName})
	assert.Contains(t, related, configv1.ObjectReference{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "nmstates.nmstate.io"})
}
