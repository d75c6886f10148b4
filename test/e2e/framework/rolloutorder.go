package framework

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// versions[operator] only once the operands run the release; states are
// ordered by etcd revision (one etcd), not arrival time.

// RolloutEvent is one observed state of the ClusterOperator or an operand.
type RolloutEvent struct {
	Revision    uint64 // resourceVersion
	At          time.Time
	Object      string // "ClusterOperator node", "DaemonSet ns/name"
	Operator    bool   // the ClusterOperator
	Version     string // its versions[operator]
	Progressing configv1.ConditionStatus
	Images      []string // the operand's containers'
	RolledOut   bool     // every replica on the current template and available
	Rollout     string   // how far, for messages
}

// RolloutRecorder keeps every state of a ClusterOperator and the workloads
// of namespaces.
type RolloutRecorder struct {
	mu     sync.Mutex
	events []RolloutEvent
	stopCh chan struct{}
	once   sync.Once
}

// StartRolloutRecorder records until the test ends; skip names workloads
// that are not operands (the operator's own Deployment).
func StartRolloutRecorder(t testing.TB, cfg *rest.Config, name string, namespaces []string, skip ...string) *RolloutRecorder {
	t.Helper()
	r := &RolloutRecorder{stopCh: make(chan struct{})}
	t.Cleanup(r.Stop)
	config, err := configclient.NewForConfig(cfg)
	require.NoError(t, err)
	kube, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[s] = true
	}
	var synced []cache.InformerSynced
	watch := func(lw cache.ListerWatcher, obj runtime.Object) {
		_, informer := cache.NewInformerWithOptions(cache.InformerOptions{
			ListerWatcher: lw,
			ObjectType:    obj,
			Handler: cache.ResourceEventHandlerFuncs{
				AddFunc:    func(o interface{}) { r.observe(o, skipped) },
				UpdateFunc: func(_, o interface{}) { r.observe(o, skipped) },
			},
		})
		go informer.Run(r.stopCh)
		synced = append(synced, informer.HasSynced)
	}
	watch(cache.NewListWatchFromClient(config.ConfigV1().RESTClient(), "clusteroperators", "", fields.OneTermEqualSelector("metadata.name", name)), &configv1.ClusterOperator{})
	for _, ns := range namespaces {
		watch(cache.NewListWatchFromClient(kube.AppsV1().RESTClient(), "daemonsets", ns, fields.Everything()), &appsv1.DaemonSet{})
		watch(cache.NewListWatchFromClient(kube.AppsV1().RESTClient(), "deployments", ns, fields.Everything()), &appsv1.Deployment{})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		t.Fatal("rollout recorder: no initial lists within a minute")
	}
	return r
}

// Stop ends the watches.
func (r *RolloutRecorder) Stop() { r.once.Do(func() { close(r.stopCh) }) }

// Events returns what was recorded so far, in etcd order.
func (r *RolloutRecorder) Events() []RolloutEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]RolloutEvent{}, r.events...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Revision < out[j].Revision })
	return out
}

func (r *RolloutRecorder) observe(obj interface{}, skipped map[string]bool) {
	var ev RolloutEvent
	switch o := obj.(type) {
	case *configv1.ClusterOperator:
		ev = RolloutEvent{Object: "ClusterOperator " + o.Name, Operator: true, Revision: revision(o.ResourceVersion)}
		for _, v := range o.Status.Versions {
			if v.Name == "operator" {
				ev.Version = v.Version
			}
		}
		for _, c := range o.Status.Conditions {
			if c.Type == configv1.OperatorProgressing {
				ev.Progressing = c.Status
			}
		}
	case *appsv1.DaemonSet:
		if skipped[o.Name] {
			return
		}
		s := o.Status
		ev = RolloutEvent{Object: "DaemonSet " + o.Namespace + "/" + o.Name, Revision: revision(o.ResourceVersion), Images: images(o.Spec.Template.Spec),
			RolledOut: s.ObservedGeneration >= o.Generation && s.UpdatedNumberScheduled == s.DesiredNumberScheduled &&
				s.NumberAvailable == s.DesiredNumberScheduled && s.NumberUnavailable == 0,
			Rollout: fmt.Sprintf("generation %d observed %d, %d of %d updated, %d available", o.Generation, s.ObservedGeneration,
				s.UpdatedNumberScheduled, s.DesiredNumberScheduled, s.NumberAvailable)}
	case *appsv1.Deployment:
		if skipped[o.Name] {
			return
		}
		s, want := o.Status, int32(1)
		if o.Spec.Replicas != nil {
			want = *o.Spec.Replicas
		}
		ev = RolloutEvent{Object: "Deployment " + o.Namespace + "/" + o.Name, Revision: revision(o.ResourceVersion), Images: images(o.Spec.Template.Spec),
			RolledOut: s.ObservedGeneration >= o.Generation && s.UpdatedReplicas == want && s.Replicas == want && s.AvailableReplicas == want,
			Rollout: fmt.Sprintf("generation %d observed %d, %d of %d updated, %d replicas, %d available", o.Generation, s.ObservedGeneration,
				s.UpdatedReplicas, want, s.Replicas, s.AvailableReplicas)}
	default:
		return
	}
	ev.At = time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func revision(rv string) uint64 {
	n, _ := strconv.ParseUint(rv, 10, 64)
	return n
}

func images(spec corev1.PodSpec) []string {
	var out []string
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		out = append(out, c.Image)
	}
	return out
}

// RolloutOrder is what the events of one update show.
type RolloutOrder struct {
	VersionRevision uint64 // versions[operator] first read the target; 0: never
	VersionAt       time.Time
	Operands        []OperandRollout // those whose images the update changed
	Problems        []string         // empty when all is well
}

// OperandRollout is one operand's rollout during an update.
type OperandRollout struct {
	Object                          string
	ChangedRevision, RolledRevision uint64
	ChangedAt, RolledAt             time.Time
}

// JudgeRolloutOrder judges the update to version from from: each changed
// operand rolled out to release's images before versions[operator] reads
// version, at least one rolled, Progressing=True in between.
func JudgeRolloutOrder(events []RolloutEvent, from time.Time, version string, release map[string]bool) RolloutOrder {
	var out RolloutOrder
	sorted := append([]RolloutEvent{}, events...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Revision < sorted[j].Revision })
	for _, ev := range sorted {
		if ev.Operator && !ev.At.Before(from) && ev.Version == version {
			out.VersionRevision, out.VersionAt = ev.Revision, ev.At
			break
		}
	}
	if out.VersionRevision == 0 {
		out.Problems = append(out.Problems, fmt.Sprintf("versions[operator] never read %s", version))
		return out
	}
	runsRelease := func(ev RolloutEvent) bool {
		for _, img := range ev.Images {
			if !release[img] {
				return false
			}
		}
		return len(ev.Images) > 0
	}
	// Each operand's state when the update started, and what followed.
	before := map[string]RolloutEvent{}
	var order []string
	during := map[string][]RolloutEvent{}
	for _, ev := range sorted {
		if ev.Operator {
			continue
		}
		if ev.At.Before(from) {
			before[ev.Object] = ev
			continue
		}
		if _, seen := during[ev.Object]; !seen {
			order = append(order, ev.Object)
		}
		during[ev.Object] = append(during[ev.Object], ev)
	}
	var firstChange uint64
	for _, obj := range order {
		start, known := before[obj]
		if known && runsRelease(start) {
			continue // already on the release's images: nothing to roll
		}
		r := OperandRollout{Object: obj}
		var atVersion *RolloutEvent
		for i, ev := range during[obj] {
			if r.ChangedRevision == 0 && (!known || !sameImages(ev.Images, start.Images)) {
				r.ChangedRevision, r.ChangedAt = ev.Revision, ev.At
			}
			if r.RolledRevision == 0 && r.ChangedRevision != 0 && ev.RolledOut && runsRelease(ev) {
				r.RolledRevision, r.RolledAt = ev.Revision, ev.At
			}
			if ev.Revision < out.VersionRevision {
				atVersion = &during[obj][i]
			}
		}
		if r.ChangedRevision == 0 {
			continue
		}
		out.Operands = append(out.Operands, r)
		if firstChange == 0 || r.ChangedRevision < firstChange {
			firstChange = r.ChangedRevision
		}
		switch {
		case atVersion == nil || r.ChangedRevision > out.VersionRevision:
			out.Problems = append(out.Problems, fmt.Sprintf("versions[operator] read %s (revision %d) before %s was changed to the release's images", version, out.VersionRevision, obj))
		case !atVersion.RolledOut || !runsRelease(*atVersion):
			out.Problems = append(out.Problems, fmt.Sprintf("versions[operator] read %s (revision %d) while %s was not rolled out to the release's images: %s, images %v",
				version, out.VersionRevision, obj, atVersion.Rollout, atVersion.Images))
		}
	}
	if len(out.Operands) == 0 {
		out.Problems = append(out.Problems, fmt.Sprintf("no operand rolled out during the update to %s: each ran the release's images already or never changed", version))
		return out
	}
	for _, ev := range sorted {
		if ev.Operator && ev.Revision > firstChange && ev.Revision < out.VersionRevision && ev.Progressing != configv1.ConditionTrue {
			out.Problems = append(out.Problems, fmt.Sprintf("the ClusterOperator was written with Progressing=%s (revision %d) while the operands rolled out to %s",
				statusOrMissing(ev.Progressing), ev.Revision, version))
		}
	}
	return out
}

func sameImages(a, b []string) bool { return strings.Join(a, " ") == strings.Join(b, " ") }

func statusOrMissing(s configv1.ConditionStatus) string {
	if s == "" {
		return "<missing>"
	}
	return string(s)
}
