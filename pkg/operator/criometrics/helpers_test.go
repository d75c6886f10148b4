package criometrics

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

// writeLog records the writes a fake client sees, in order, as
// "<verb> <resource> <name>"; reads are counted.
type writeLog struct {
	writes []string
	reads  int
}

func (l *writeLog) watch(clients ...interface {
	PrependReactor(verb, resource string, reaction clienttesting.ReactionFunc)
}) {
	for _, c := range clients {
		c.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
			switch a.GetVerb() {
			case "get", "list", "watch":
				l.reads++
				return false, nil, nil
			}
			name := ""
			switch a := a.(type) {
			case interface{ GetObject() runtime.Object }: // create, update
				if m, err := meta.Accessor(a.GetObject()); err == nil {
					name = m.GetName()
				}
			case interface{ GetName() string }: // delete, patch
				name = a.GetName()
			}
			l.writes = append(l.writes, a.GetVerb()+" "+a.GetResource().Resource+" "+name)
			return false, nil, nil
		})
	}
}

// take returns and forgets what was logged.
func (l *writeLog) take() []string {
	w := l.writes
	l.writes, l.reads = nil, 0
	return w
}

// refresh fills an informer's cache with a list from the client, as the
// informer would after the writes.
func refresh(t *testing.T, informer cache.SharedIndexInformer) func(list runtime.Object, err error) {
	return func(list runtime.Object, err error) {
		t.Helper()
		require.NoError(t, err)
		objs, err := meta.ExtractList(list)
		require.NoError(t, err)
		items := make([]interface{}, 0, len(objs))
		for _, o := range objs {
			items = append(items, o)
		}
		require.NoError(t, informer.GetIndexer().Replace(items, ""))
	}
}

// metricsDecision is the recorded decision of the metrics stack.
func metricsDecision(enabled bool, mode nodev1alpha1.StackMode) *nodev1alpha1.NodeOperator {
	return &nodev1alpha1.NodeOperator{
		Spec: nodev1alpha1.NodeOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}},
		Status: nodev1alpha1.NodeOperatorStatus{Stacks: []nodev1alpha1.StackStatus{
			{Name: nodev1alpha1.MetricsStack, Enabled: enabled, Reason: platform.ReasonPlatformDefault, Mode: mode},
		}},
	}
}
