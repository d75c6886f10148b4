package criometrics

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/openshift/cluster-node-operator/bindata"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// caBundleHashAnnotation rolls the DaemonSet when the trusted CAs change:
// kube-rbac-proxy reads --upstream-ca-file only when it starts.
const caBundleHashAnnotation = "nodeoperator.openshift.io/ca-bundle-hash"

// RenderDaemonSet returns the desired DaemonSet. It is pure so that what
// changes the pod template (and so rolls every node) is easy to test.
// clientCA adds --client-ca-file: only once the copy holds a CA, as
// kube-rbac-proxy exits when that file is missing. The CA's content is
// not hashed: kube-rbac-proxy reloads the file when it changes, and
// bearer tokens keep working beside certificates.
func RenderDaemonSet(images stack.Images, tlsArgs []string, caBundle string, clientCA bool) (*appsv1.DaemonSet, error) {
	if images.KubeRBACProxy == "" || images.CertSyncer == "" {
		return nil, fmt.Errorf("the KUBE_RBAC_PROXY_IMAGE and OPERATOR_IMAGE environment variables must name the operand images")
	}
	raw := strings.NewReplacer(
		"${KUBE_RBAC_PROXY_IMAGE}", images.KubeRBACProxy,
		"${OPERATOR_IMAGE}", images.CertSyncer,
	).Replace(string(bindata.MustAsset("metrics/daemonset.yaml")))
	ds := resourceread.ReadDaemonSetV1OrDie([]byte(raw))

	proxy := &ds.Spec.Template.Spec.Containers[0]
	if proxy.Name != "kube-rbac-proxy" {
		return nil, fmt.Errorf("metrics/daemonset.yaml: first container is %q, want kube-rbac-proxy", proxy.Name)
	}
	proxy.Args = append(proxy.Args, tlsArgs...)
	if clientCA {
		proxy.Args = append(proxy.Args, "--client-ca-file="+ClientCAFile)
	}

	sum := sha256.Sum256([]byte(caBundle))
	ds.Spec.Template.Annotations[caBundleHashAnnotation] = hex.EncodeToString(sum[:8])
	return ds, nil
}
