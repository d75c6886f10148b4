package testsext

import (
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/restmapper"
)

// settle is how long a test waits for a state a healthy operator reaches
// by itself (a resync of the stack decision is two minutes).
const settle = 3 * time.Minute

// coCondition is the status of a ClusterOperator condition, "" when absent.
func coCondition(co *configv1.ClusterOperator, t configv1.ClusterStatusConditionType) (configv1.ConditionStatus, string) {
	for _, c := range co.Status.Conditions {
		if c.Type == t {
			return c.Status, c.Reason + ": " + c.Message
		}
	}
	return "", "absent"
}

// healthy says what keeps ClusterOperator node from Available=True and
// Degraded=False, with its operator Deployment available; "" when nothing.
func healthy(t *T) (string, error) {
	co, err := t.Cluster.Configs.ConfigV1().ClusterOperators().Get(t.Ctx, clusterOperator, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("clusteroperator/%s: %w", clusterOperator, err)
	}
	if s, msg := coCondition(co, configv1.OperatorAvailable); s != configv1.ConditionTrue {
		return fmt.Sprintf("Available=%s (%s)", s, msg), nil
	}
	if s, msg := coCondition(co, configv1.OperatorDegraded); s != configv1.ConditionFalse {
		return fmt.Sprintf("Degraded=%s (%s)", s, msg), nil
	}
	// Conditions stay as last written when nothing runs the operator.
	d, err := t.Cluster.Kube.AppsV1().Deployments(operatorNamespace).Get(t.Ctx, operatorDeployment, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("deployment %s/%s: %w", operatorNamespace, operatorDeployment, err)
	}
	if d.Status.AvailableReplicas < 1 || d.Status.ObservedGeneration < d.Generation {
		return fmt.Sprintf("deployment %s/%s has %d available replicas (generation %d observed %d)",
			operatorNamespace, operatorDeployment, d.Status.AvailableReplicas, d.Generation, d.Status.ObservedGeneration), nil
	}
	return "", nil
}

func testConditions(t *T) error {
	return t.Eventually(settle, "clusteroperator/node Available=True, Degraded=False and its operator running", func() (string, error) {
		return healthy(t)
	})
}

// testVersions: versions[operator] is set, and is the release's once the
// ClusterVersion says the release is completely applied.
func testVersions(t *T) error {
	co, err := t.Cluster.Configs.ConfigV1().ClusterOperators().Get(t.Ctx, clusterOperator, metav1.GetOptions{})
	if err != nil {
		return err
	}
	var got string
	for _, v := range co.Status.Versions {
		if v.Name == "operator" {
			got = v.Version
		}
	}
	if got == "" {
		return fmt.Errorf("clusteroperator/node reports no version \"operator\": %+v", co.Status.Versions)
	}
	cv, err := t.Cluster.Configs.ConfigV1().ClusterVersions().Get(t.Ctx, "version", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		t.Logf("no ClusterVersion: versions[operator]=%s not compared", got)
		return nil
	}
	if err != nil {
		return err
	}
	if len(cv.Status.History) == 0 || cv.Status.History[0].State != configv1.CompletedUpdate {
		t.Logf("the release %s is not completely applied yet: versions[operator]=%s not compared", cv.Status.Desired.Version, got)
		return nil
	}
	if want := cv.Status.History[0].Version; got != want {
		return fmt.Errorf("clusteroperator/node versions[operator]=%s, but the cluster completed release %s", got, want)
	}
	t.Logf("versions[operator]=%s, the completed release's", got)
	return nil
}

// testRelatedObjects: every relatedObject resolves (must-gather collects
// them with oc adm inspect).
func testRelatedObjects(t *T) error {
	co, err := t.Cluster.Configs.ConfigV1().ClusterOperators().Get(t.Ctx, clusterOperator, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if len(co.Status.RelatedObjects) == 0 {
		return fmt.Errorf("clusteroperator/node lists no relatedObjects: must-gather would collect nothing of it")
	}
	resources, err := restmapper.GetAPIGroupResources(t.Cluster.Kube.Discovery())
	if err != nil {
		return err
	}
	mapper := restmapper.NewDiscoveryRESTMapper(resources)
	var missing []string
	for _, ref := range co.Status.RelatedObjects {
		id := fmt.Sprintf("%s/%s %s/%s", ref.Group, ref.Resource, ref.Namespace, ref.Name)
		gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Group: ref.Group, Resource: ref.Resource})
		if err != nil {
			missing = append(missing, id+" (resource not served)")
			continue
		}
		r := t.Cluster.Dynamic.Resource(gvr)
		switch {
		case ref.Name == "":
			_, err = r.Namespace(ref.Namespace).List(t.Ctx, metav1.ListOptions{Limit: 1})
		case ref.Namespace != "":
			_, err = r.Namespace(ref.Namespace).Get(t.Ctx, ref.Name, metav1.GetOptions{})
		default:
			_, err = r.Get(t.Ctx, ref.Name, metav1.GetOptions{})
		}
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s (%v)", id, err))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("relatedObjects that do not resolve:\n%s", strings.Join(missing, "\n"))
	}
	t.Logf("all %d relatedObjects resolve", len(co.Status.RelatedObjects))
	return nil
}
