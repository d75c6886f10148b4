// Package launcher runs the operator process around the controllers: flags,
// client configuration, events, a loopback endpoint for metrics and health,
// leader election and graceful termination.
//
// It takes the place of library-go's controllercmd. controllercmd embeds
// k8s.io/apiserver's generic server to serve /metrics with TLS and delegated
// authentication and authorization; that server, with the CEL, etcd and gRPC
// code it links, made up a fifth of the binary and a quarter of its resident
// memory, and its authentication informers two thirds of the operator's
// watch requests. Here /metrics is plain HTTP on loopback, and the
// Deployment's kube-rbac-proxy sidecar terminates TLS and authorizes
// scrapers, as it does for CRI-O.
package launcher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	"github.com/openshift/library-go/pkg/config/client"
	leaderelectionconverter "github.com/openshift/library-go/pkg/config/leaderelection"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	// Registers client-go's REST client, workqueue and leader election
	// metrics, as controllercmd's server did.
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-node-operator/pkg/version"
)

// serviceAccountNamespaceFile is where a pod finds its namespace.
const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// gracefulTermination is how long the controllers get to stop after the
// process is told to; the Deployment's terminationGracePeriodSeconds (30 s)
// must be longer.
const gracefulTermination = 10 * time.Second

// Controllers is what runs while this process holds the lease.
type Controllers func(ctx context.Context, cc *Context) error

// Context is what the controllers get from the process.
type Context struct {
	// KubeConfig is the configuration of every client.
	KubeConfig *rest.Config
	// EventRecorder records events on the operator's Deployment (its pod's
	// owner), or on its namespace when that cannot be found.
	EventRecorder events.Recorder
	// Namespace is the operator's own namespace.
	Namespace string
	Clock     clock.Clock
}

// Options are the process's flags.
type Options struct {
	// Component names the binary in events, the lease and the build info
	// metric's help.
	Component string
	// Kubeconfig is empty in a pod: the in-cluster configuration is used.
	Kubeconfig string
	// Namespace is empty in a pod: the ServiceAccount's namespace is used.
	Namespace string
	// Listen is the address of the plain-HTTP /metrics, /healthz and
	// /readyz endpoint. It must stay on loopback in a pod: the
	// kube-rbac-proxy sidecar is what other pods reach.
	Listen string
	// LeaseDuration, RenewDeadline and RetryPeriod left zero take library-go's
	// OpenShift defaults, or its single-node defaults on a SingleReplica
	// control plane.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Prepare, when set, runs in every replica as the process starts,
	// beside the wait for the lease, for what the pod needs whether or not
	// this replica leads (metricsclientca.Prepare).
	Prepare func(ctx context.Context, cc *Context)
}

// NewOptions returns the defaults for component.
func NewOptions(component string) *Options {
	return &Options{Component: component, Listen: "127.0.0.1:8080"}
}

// AddFlags registers the flags on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to a kubeconfig file; empty in a pod (in-cluster configuration).")
	fs.StringVar(&o.Namespace, "namespace", o.Namespace, "The operator's namespace; empty in a pod (the ServiceAccount's namespace).")
	fs.StringVar(&o.Listen, "listen", o.Listen, "Address of the plain-HTTP /metrics, /healthz and /readyz endpoint; keep it on loopback (a kube-rbac-proxy sidecar serves /metrics to the cluster).")
	fs.DurationVar(&o.LeaseDuration, "leader-election-lease-duration", o.LeaseDuration, "Leader election lease duration (0: the OpenShift default).")
	fs.DurationVar(&o.RenewDeadline, "leader-election-renew-deadline", o.RenewDeadline, "Leader election renew deadline (0: the OpenShift default).")
	fs.DurationVar(&o.RetryPeriod, "leader-election-retry-period", o.RetryPeriod, "Leader election retry period (0: the OpenShift default).")
}

// Run serves the endpoint, waits for the lease and runs the controllers until
// ctx is done; then it gives them gracefulTermination to stop and releases
// the lease. A lease lost while running ends the process, as another replica
// may already act.
func (o *Options) Run(ctx context.Context, controllers Controllers) error {
	v := version.Get()
	klog.Infof("%s version %s (commit %s)", o.Component, v.GitVersion, v.GitCommit)

	kubeConfig, err := client.GetKubeConfigOrInClusterConfig(o.Kubeconfig, nil)
	if err != nil {
		return err
	}
	namespace, err := o.namespace()
	if err != nil {
		return err
	}
	kubeClient, err := kubernetes.NewForConfig(kubeConfig)
	if err != nil {
		return err
	}
	clk := clock.RealClock{}
	recorder := o.eventRecorder(ctx, kubeClient, namespace, clk)
	utilruntime.PanicHandlers = append(utilruntime.PanicHandlers, func(_ context.Context, r interface{}) {
		recorder.Warningf("OperatorPanic", "Panic observed: %v", r)
	})
	registerBuildInfo(namespace, o.Component, v)

	// Bind before anything else so that a taken port fails the start
	// instead of leaving a process without metrics.
	listener, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	leaderHealth := leaderelection.NewLeaderHealthzAdaptor(20 * time.Second)
	var led atomic.Bool
	server := &http.Server{Handler: newMux(leaderHealth, &led), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := server.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.Errorf("serving %s: %v", o.Listen, err)
		}
	}()
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = server.Shutdown(shutdownCtx)
	}()

	election, err := o.leaderElection(ctx, kubeConfig, namespace, recorder)
	if err != nil {
		return err
	}
	election.WatchDog = leaderHealth

	cc := &Context{KubeConfig: kubeConfig, EventRecorder: recorder, Namespace: namespace, Clock: clk}
	stopped := make(chan struct{})
	var controllersErr error
	election.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(leaderCtx context.Context) {
			led.Store(true)
			defer close(stopped)
			controllersErr = controllers(leaderCtx, cc)
			if leaderCtx.Err() == nil {
				// The controllers ended on their own: without them the
				// lease must not be held.
				klog.Errorf("controllers stopped before shutdown: %v", controllersErr)
				os.Exit(1)
			}
		},
		OnStoppedLeading: func() {
			if ctx.Err() != nil {
				return // shutdown: the lease is released
			}
			// Another replica may act from now on: stop at once.
			klog.Warning("leader election lost")
			os.Exit(0)
		},
	}
	if o.Prepare != nil {
		go o.Prepare(ctx, cc)
	}
	// Blocks until ctx is done.
	leaderelection.RunOrDie(ctx, election)
	if !led.Load() {
		return nil
	}
	select {
	case <-stopped:
		return controllersErr
	case <-time.After(gracefulTermination):
		return fmt.Errorf("controllers did not stop within %s", gracefulTermination)
	}
}

func (o *Options) namespace() (string, error) {
	if o.Namespace != "" {
		return o.Namespace, nil
	}
	data, err := os.ReadFile(serviceAccountNamespaceFile)
	if err != nil {
		return "", fmt.Errorf("--namespace is required outside a pod: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

// eventRecorder records on the Deployment that owns this pod (found from
// POD_NAME), falling back to the namespace.
func (o *Options) eventRecorder(ctx context.Context, kubeClient kubernetes.Interface, namespace string, clk clock.PassiveClock) events.Recorder {
	ref, err := events.GetControllerReferenceForCurrentPod(ctx, kubeClient, namespace, nil)
	if err != nil {
		klog.Warningf("unable to find the operator's Deployment for events, recording them on namespace %s: %v", namespace, err)
	}
	return events.NewKubeRecorder(kubeClient.CoreV1().Events(namespace), o.Component, ref, clk)
}

// leaderElection is library-go's lease configuration: the OpenShift
// defaults, the single-node ones on a SingleReplica control plane unless a
// flag set the timings, and a client timeout of the renew deadline so that a
// hung connection cannot outlast the lease.
func (o *Options) leaderElection(ctx context.Context, kubeConfig *rest.Config, namespace string, recorder events.Recorder) (leaderelection.LeaderElectionConfig, error) {
	le := configv1.LeaderElection{
		LeaseDuration: metav1.Duration{Duration: o.LeaseDuration},
		RenewDeadline: metav1.Duration{Duration: o.RenewDeadline},
		RetryPeriod:   metav1.Duration{Duration: o.RetryPeriod},
	}
	le = leaderelectionconverter.LeaderElectionDefaulting(le, namespace, o.Component+"-lock")
	if o.LeaseDuration == 0 && o.RenewDeadline == 0 && o.RetryPeriod == 0 {
		topology, err := controlPlaneTopology(ctx, kubeConfig)
		switch {
		case err != nil:
			recorder.Warningf("ControlPlaneTopology", "unable to read the control plane topology, using the HA leader election timings: %v", err)
		case topology == configv1.SingleReplicaTopologyMode:
			klog.Info("SingleReplica control plane: using the single-node leader election timings")
			le = leaderelectionconverter.LeaderElectionSNOConfig(le)
		}
	}
	leaseConfig := rest.CopyConfig(kubeConfig)
	leaseConfig.Timeout = le.RenewDeadline.Duration
	return leaderelectionconverter.ToLeaderElectionWithLease(leaseConfig, le, o.Component, "")
}

func controlPlaneTopology(ctx context.Context, kubeConfig *rest.Config) (configv1.TopologyMode, error) {
	c, err := configclient.NewForConfig(kubeConfig)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	infra, err := c.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return infra.Status.ControlPlaneTopology, nil
}

// newMux serves the registry's metrics, the health of the lease (a process
// whose lease renewal is stuck past its deadline is unhealthy) and readiness:
// ready once this process leads and runs the controllers, so that a standby
// replica, or a process still waiting for a predecessor's lease, says so.
func newMux(leaderHealth *leaderelection.HealthzAdaptor, leading *atomic.Bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", legacyregistry.Handler())
	healthz := func(w http.ResponseWriter, r *http.Request) {
		if err := leaderHealth.Check(r); err != nil {
			http.Error(w, "leader election: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}
	mux.HandleFunc("/healthz", healthz)
	mux.HandleFunc("/livez", healthz)
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !leading.Load() {
			http.Error(w, "not leading: waiting for the lease", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	return mux
}

// registerBuildInfo exports <namespace>_build_info, the name controllercmd
// gave it (openshift_cluster_node_operator_build_info).
func registerBuildInfo(namespace, component string, v apimachineryversion.Info) {
	buildInfo := metrics.NewGaugeVec(&metrics.GaugeOpts{
		Name:           strings.ReplaceAll(namespace, "-", "_") + "_build_info",
		Help:           "A metric with a constant '1' value labeled by the version, commit, tree state, build date, Go version, compiler and platform " + component + " was built from.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"major", "minor", "gitVersion", "gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"})
	legacyregistry.MustRegister(buildInfo)
	buildInfo.WithLabelValues(v.Major, v.Minor, v.GitVersion, v.GitCommit, v.GitTreeState, v.BuildDate, v.GoVersion, v.Compiler, v.Platform).Set(1)
}
