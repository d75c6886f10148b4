package framework

import (
	"context"
	"fmt"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TokenOptions configure a ServiceAccount token minted with the TokenRequest
// API, as the kubelet mints the tokens it projects into pods.
type TokenOptions struct {
	// Audiences default to the API server's.
	Audiences []string
	// ExpirationSeconds defaults to 3607, what the kubelet asks for.
	ExpirationSeconds int64
	// Pod binds the token to a pod, as the kubelet does: the token is
	// invalid once the pod is gone. The pod must run as the ServiceAccount.
	Pod *corev1.Pod
}

// ServiceAccountToken returns a token of the ServiceAccount namespace/name.
func ServiceAccountToken(ctx context.Context, client kubernetes.Interface, namespace, name string, opts TokenOptions) (string, error) {
	if opts.ExpirationSeconds == 0 {
		opts.ExpirationSeconds = 3607
	}
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		Audiences:         opts.Audiences,
		ExpirationSeconds: &opts.ExpirationSeconds,
	}}
	if opts.Pod != nil {
		req.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{
			Kind: "Pod", APIVersion: "v1", Name: opts.Pod.Name, UID: opts.Pod.UID,
		}
	}
	resp, err := client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, req, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return resp.Status.Token, nil
}

// ServiceAccountConfig returns a client configuration that authenticates as
// the ServiceAccount namespace/name against the cluster of admin.
func ServiceAccountConfig(t testing.TB, admin *rest.Config, namespace, name string) *rest.Config {
	t.Helper()
	client, err := kubernetes.NewForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	token, err := ServiceAccountToken(ctx, client, namespace, name, TokenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(admin)
	cfg.BearerToken = token
	cfg.UserAgent = "cluster-node-operator-e2e-" + name
	return cfg
}
