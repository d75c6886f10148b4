package framework

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift/cluster-node-operator/test/kubeletvolume"
)

// PodProcessOptions configure StartPodProcess.
type PodProcessOptions struct {
	Pod                *corev1.Pod             // as the API server has it; default Node's
	Container          string                  // default the first
	ServiceAccountName string                  // another ServiceAccount of the namespace (tokens not bound to the pod)
	Binaries           map[string]string       // command's base name (else container name) -> local file
	Node               *Node                   // hostPath volumes below its root
	RewriteArgs        func([]string) []string // may move a listening port, nothing else
}

// StartPodProcess runs a pod's container as a local process as the kubelet would (docs/testing.md), until the test ends.
func StartPodProcess(t testing.TB, admin *rest.Config, opts PodProcessOptions) *Process {
	t.Helper()
	if os.Geteuid() != 0 {
		Unavailable(t, "running a container as a pod-like process needs root (mount namespaces)")
	}
	client, err := kubernetes.NewForConfig(admin)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pod, hostRoot := opts.Pod, ""
	if opts.Node != nil {
		hostRoot = opts.Node.Root
		if pod == nil {
			pod = opts.Node.pod()
		}
	}
	c := containerOf(t, pod, opts.Container)
	for _, e := range c.Env {
		if e.Name == "OPERATOR_IMAGE_VERSION" {
			expectVersion(e.Value)
			// The cluster-config operator's part: the gates of the
			// version, which the operator waits for.
			require.NoError(t, WriteFeatureGateStatus(ctx, admin, e.Value))
		}
	}
	sa := pod.Spec.ServiceAccountName
	bound := pod
	if opts.ServiceAccountName != "" && opts.ServiceAccountName != sa {
		sa, bound = opts.ServiceAccountName, nil
	}

	stage, err := os.MkdirTemp(filepath.Join(RepoRoot(t), "_output"), "e2e-pod-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(stage) })

	env, err := podEnvironment(ctx, client, admin, pod, c)
	require.NoError(t, err, "pod %s container %s", pod.Name, c.Name)
	var argv []string
	for _, a := range append(append([]string{}, c.Command...), c.Args...) {
		argv = append(argv, expandVars(a, env))
	}
	if len(c.Command) == 0 {
		argv = append([]string{c.Name}, argv...)
	}
	binary := opts.Binaries[path.Base(argv[0])]
	if binary == "" {
		t.Fatalf("no local binary for the container's command %q", argv[0])
	}
	if opts.RewriteArgs != nil {
		argv = append(argv[:1], opts.RewriteArgs(argv[1:])...)
	}

	r := &podRun{t: t, ctx: ctx, client: client, pod: pod, c: c, sa: sa, bound: bound, stage: stage, hostRoot: hostRoot}
	r.mountVolumes()
	// On OpenShift the SCC assigns a user from the namespace's range when
	// the securityContext sets none.
	uid := r.securityContext(1000650000)
	args := append([]string{"--mount", "--propagation", "private", "--", "/bin/sh", "-c", r.script.String(), "pod-" + pod.Name, binary}, argv[1:]...)
	cmd := exec.Command("unshare", args...)
	cmd.Env = env.list()
	o := startLogged(t, cmd, e2eLogPath(t, c.Name))
	o.Args = argv[1:]
	t.Logf("container %s of pod %s/%s runs as local process %d (uid %d, ServiceAccount %s): %q; log: %s",
		c.Name, pod.Namespace, pod.Name, cmd.Process.Pid, uid, sa, argv, o.LogPath)
	return o
}

// podRun builds the script that sets up a container's mount namespace and execs it.
type podRun struct {
	t               testing.TB
	ctx             context.Context
	client          kubernetes.Interface
	pod, bound      *corev1.Pod
	c               corev1.Container
	sa              string
	stage, hostRoot string
	script          strings.Builder
	overlays        map[string]bool
	overlaid        []string
}

// overlay makes a missing mount point in the namespace only: an overlay over its nearest existing ancestor.
func (r *podRun) overlay(target string) {
	anc := path.Dir(target)
	for {
		if fi, err := os.Stat(anc); err == nil {
			if !fi.IsDir() {
				r.t.Fatalf("mount point %s: %s is not a directory", target, anc)
			}
			break
		}
		anc = path.Dir(anc)
	}
	if anc == "/" {
		anc = "/" + strings.Split(target, "/")[1]
		require.NoError(r.t, os.MkdirAll(anc, 0o755))
	}
	if !r.overlays[anc] {
		r.overlays[anc] = true
		r.overlaid = append(r.overlaid, anc)
		layer := filepath.Join(r.stage, "overlay-"+strconv.Itoa(len(r.overlays)))
		require.NoError(r.t, os.MkdirAll(layer, 0o755))
		fmt.Fprintf(&r.script, "mount -n -t tmpfs -o mode=0755 tmpfs %q\nmkdir %q/upper %q/work\n", layer, layer, layer)
		fmt.Fprintf(&r.script, "mount -n -t overlay overlay -o lowerdir=%s,upperdir=%s/upper,workdir=%s/work %q\n", anc, layer, layer, anc)
	}
}

// mountVolumes writes the mounts of the container's volumes.
func (r *podRun) mountVolumes() {
	t, c := r.t, r.c
	volumes := map[string]corev1.Volume{}
	for _, v := range r.pod.Spec.Volumes {
		volumes[v.Name] = v
	}
	r.script.WriteString("set -eu\n")
	// The host's /run (and /var/run) is replaced by an empty tmpfs, in which
	// the pod's mounts below /run are made.
	r.script.WriteString("mount -n -t tmpfs -o mode=0755 tmpfs /run\n")
	underRun := func(target string) bool {
		return target == "/run" || strings.HasPrefix(target, "/run/") || strings.HasPrefix(target, "/var/run/")
	}
	// Overlays first, so that they cover none of the pod's mounts.
	r.overlays = map[string]bool{}
	for _, m := range c.VolumeMounts {
		if _, err := os.Stat(path.Clean(m.MountPath)); err != nil && !underRun(path.Clean(m.MountPath)) {
			r.overlay(path.Clean(m.MountPath))
		}
	}
	for i, m := range c.VolumeMounts {
		if m.SubPath != "" || m.SubPathExpr != "" {
			t.Fatalf("volume mount %s: subPath is not supported", m.Name)
		}
		v, ok := volumes[m.Name]
		if !ok {
			t.Fatalf("volume mount %s: no such volume", m.Name)
		}
		target := path.Clean(m.MountPath)
		if fi, err := os.Stat(target); !underRun(target) && err == nil && !fi.IsDir() {
			t.Fatalf("volume mount %s at %s: not a directory on this machine", m.Name, target)
		}
		if v.HostPath != nil {
			local := hostPathDir(t, r.hostRoot, v.HostPath)
			fmt.Fprintf(&r.script, "mkdir -p %q\nmount -n --bind %q %q\n", target, local, target)
			if m.ReadOnly {
				fmt.Fprintf(&r.script, "mount -n -o remount,bind,ro %q\n", target)
			}
			continue
		}
		dir, mode := filepath.Join(r.stage, strconv.Itoa(i)), "0755"
		require.NoError(t, os.MkdirAll(dir, 0o755))
		switch {
		case v.EmptyDir != nil:
			mode = "1777"
		case v.Secret != nil, v.ConfigMap != nil, v.Projected != nil:
			files, modes, err := volumePayload(r.ctx, r.client, r.pod, r.sa, r.bound, v)
			if err == nil {
				_, err = kubeletvolume.Write(dir, files, modes)
			}
			if err != nil {
				t.Fatalf("pod %s volume %s: %v (the kubelet would not start the pod)", r.pod.Name, v.Name, err)
			}
		default:
			t.Fatalf("volume %s: only emptyDir, secret, configMap and projected volumes are supported", v.Name)
		}
		fmt.Fprintf(&r.script, "mkdir -p %q\nmount -n -t tmpfs -o mode=%s tmpfs %q\ncp -a %q/. %q/\n", target, mode, target, dir, target)
		if m.ReadOnly {
			fmt.Fprintf(&r.script, "mount -n -o remount,ro %q\n", target)
		}
	}
}

// securityContext writes the security contexts' settings and the exec as their user (uid by default), which it returns.
func (r *podRun) securityContext(uid int64) int64 {
	gid := int64(0)
	var groups []string
	psc, csc := r.pod.Spec.SecurityContext, r.c.SecurityContext
	if psc != nil {
		if psc.RunAsUser != nil {
			uid = *psc.RunAsUser
		}
		if psc.RunAsGroup != nil {
			gid = *psc.RunAsGroup
		}
		if psc.FSGroup != nil {
			groups = append(groups, strconv.FormatInt(*psc.FSGroup, 10))
		}
	}
	readOnlyRoot, noNewPrivs, dropAll := false, false, false
	if csc != nil {
		if csc.RunAsUser != nil {
			uid = *csc.RunAsUser
		}
		if csc.RunAsGroup != nil {
			gid = *csc.RunAsGroup
		}
		readOnlyRoot = csc.ReadOnlyRootFilesystem != nil && *csc.ReadOnlyRootFilesystem
		noNewPrivs = csc.AllowPrivilegeEscalation != nil && !*csc.AllowPrivilegeEscalation
		if csc.Capabilities != nil {
			dropAll = slices.Contains(csc.Capabilities.Drop, "ALL")
		}
	}
	nonRoot := (psc != nil && psc.RunAsNonRoot != nil && *psc.RunAsNonRoot) || (csc != nil && csc.RunAsNonRoot != nil && *csc.RunAsNonRoot)
	if nonRoot && uid == 0 {
		r.t.Fatalf("container %s must run as non-root but would run as root", r.c.Name)
	}
	if readOnlyRoot {
		for _, dir := range append([]string{"/"}, r.overlaid...) {
			fmt.Fprintf(&r.script, "mount -n -o remount,bind,ro %q\n", dir)
		}
	}
	workDir := r.c.WorkingDir
	if workDir == "" {
		workDir = "/"
	}
	setpriv := []string{"setpriv", "--reuid=" + strconv.FormatInt(uid, 10), "--regid=" + strconv.FormatInt(gid, 10), "--clear-groups"}
	if len(groups) > 0 {
		setpriv[3] = "--groups=" + strings.Join(groups, ",")
	}
	if noNewPrivs {
		setpriv = append(setpriv, "--no-new-privs")
	}
	if dropAll {
		setpriv = append(setpriv, "--bounding-set=-all", "--inh-caps=-all")
	}
	fmt.Fprintf(&r.script, "cd %q\nexec %s -- \"$@\"\n", workDir, strings.Join(setpriv, " "))
	return uid
}

// hostPathDir is a hostPath volume below the node's root, made or checked per its type.
func hostPathDir(t testing.TB, root string, hp *corev1.HostPathVolumeSource) string {
	t.Helper()
	if root == "" {
		t.Fatalf("hostPath %s: the pod runs on no node (PodProcessOptions.Node)", hp.Path)
	}
	dir := filepath.Join(root, hp.Path)
	switch {
	case hp.Type != nil && *hp.Type == corev1.HostPathDirectoryOrCreate:
		require.NoError(t, os.MkdirAll(dir, 0o755))
	case hp.Type != nil && *hp.Type == corev1.HostPathDirectory:
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Fatalf("hostPath %s is not a directory on the node; the kubelet would not start the pod", hp.Path)
		}
	}
	return dir
}

func containerOf(t testing.TB, pod *corev1.Pod, name string) corev1.Container {
	t.Helper()
	for _, c := range pod.Spec.Containers {
		if name == "" || c.Name == name {
			return c
		}
	}
	t.Fatalf("pod %s has no container %q", pod.Name, name)
	return corev1.Container{}
}

// environment is an ordered environment.
type environment struct {
	names  []string
	values map[string]string
}

func (e *environment) set(name, value string) {
	if _, ok := e.values[name]; !ok {
		e.names = append(e.names, name)
	}
	e.values[name] = value
}

func (e *environment) list() []string {
	var out []string
	for _, n := range e.names {
		out = append(out, n+"="+e.values[n])
	}
	return out
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expandVars expands $(VAR) as the kubelet does; unknown references stay.
func expandVars(s string, env *environment) string {
	return varRef.ReplaceAllStringFunc(s, func(ref string) string {
		if v, ok := env.values[varRef.FindStringSubmatch(ref)[1]]; ok {
			return v
		}
		return ref
	})
}

// podEnvironment is the container's environment as the kubelet builds it.
func podEnvironment(ctx context.Context, client kubernetes.Interface, admin *rest.Config, pod *corev1.Pod, c corev1.Container) (*environment, error) {
	env := &environment{values: map[string]string{}}
	// What the image and the runtime set.
	env.set("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	env.set("HOSTNAME", pod.Name)
	// The kubelet's service environment for the kubernetes Service; here the
	// API server's address, which a pod would reach through the Service.
	u, err := url.Parse(admin.Host)
	if err != nil {
		return nil, err
	}
	env.set("KUBERNETES_SERVICE_HOST", u.Hostname())
	env.set("KUBERNETES_SERVICE_PORT", u.Port())
	env.set("KUBERNETES_SERVICE_PORT_HTTPS", u.Port())

	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env.set(e.Name, expandVars(e.Value, env))
			continue
		}
		switch src := e.ValueFrom; {
		case src.FieldRef != nil:
			v, err := podField(pod, src.FieldRef.FieldPath)
			if err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			env.set(e.Name, v)
		default:
			return nil, fmt.Errorf("env %s: unsupported valueFrom", e.Name)
		}
	}
	return env, nil
}

// podField resolves a downward API field path.
func podField(pod *corev1.Pod, fieldPath string) (string, error) {
	switch fieldPath {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "status.hostIP":
		return pod.Status.HostIP, nil
	case "status.podIP":
		return pod.Status.PodIP, nil
	}
	return "", fmt.Errorf("unsupported field path %s", fieldPath)
}

// volumePayload is the kubelet's projection of a Secret, ConfigMap or projected volume: files and modes.
func volumePayload(ctx context.Context, client kubernetes.Interface, pod *corev1.Pod, sa string, bound *corev1.Pod, v corev1.Volume) (map[string][]byte, map[string]os.FileMode, error) {
	files, modes := map[string][]byte{}, map[string]os.FileMode{}
	put := func(name string, data []byte, mode, defaultMode *int32) {
		files[name], modes[name] = data, 0o644
		if defaultMode != nil {
			modes[name] = os.FileMode(*defaultMode)
		}
		if mode != nil {
			modes[name] = os.FileMode(*mode)
		}
	}
	keysToPaths := func(data map[string][]byte, items []corev1.KeyToPath, defaultMode *int32) error {
		if len(items) == 0 {
			for k, d := range data {
				put(k, d, nil, defaultMode)
			}
		}
		for _, it := range items {
			d, ok := data[it.Key]
			if !ok {
				return fmt.Errorf("key %s not found", it.Key)
			}
			put(it.Path, d, it.Mode, defaultMode)
		}
		return nil
	}
	secret := func(name string, optional *bool, items []corev1.KeyToPath, mode *int32) error {
		s, err := client.CoreV1().Secrets(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) && optional != nil && *optional {
			return nil
		}
		if err != nil {
			return err
		}
		return keysToPaths(s.Data, items, mode)
	}
	configMap := func(name string, optional *bool, items []corev1.KeyToPath, mode *int32) error {
		var cm *corev1.ConfigMap
		var err error
		// kube-root-ca.crt is published into a new namespace shortly after
		// it is created; the kubelet waits for it too.
		_ = wait.PollUntilContextCancel(ctx, time.Second, true, func(context.Context) (bool, error) {
			cm, err = client.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
			return !apierrors.IsNotFound(err) || (optional != nil && *optional), nil
		})
		if apierrors.IsNotFound(err) && optional != nil && *optional {
			return nil
		}
		if err != nil {
			return err
		}
		data := map[string][]byte{}
		for k, s := range cm.Data {
			data[k] = []byte(s)
		}
		for k, b := range cm.BinaryData {
			data[k] = b
		}
		return keysToPaths(data, items, mode)
	}
	var err error
	switch {
	case v.Secret != nil:
		err = secret(v.Secret.SecretName, v.Secret.Optional, v.Secret.Items, v.Secret.DefaultMode)
	case v.ConfigMap != nil:
		err = configMap(v.ConfigMap.Name, v.ConfigMap.Optional, v.ConfigMap.Items, v.ConfigMap.DefaultMode)
	case v.Projected != nil:
		for _, src := range v.Projected.Sources {
			if err != nil {
				break
			}
			switch {
			case src.Secret != nil:
				err = secret(src.Secret.Name, src.Secret.Optional, src.Secret.Items, v.Projected.DefaultMode)
			case src.ConfigMap != nil:
				err = configMap(src.ConfigMap.Name, src.ConfigMap.Optional, src.ConfigMap.Items, v.Projected.DefaultMode)
			case src.ServiceAccountToken != nil:
				opts := TokenOptions{Pod: bound}
				if src.ServiceAccountToken.Audience != "" {
					opts.Audiences = []string{src.ServiceAccountToken.Audience}
				}
				if src.ServiceAccountToken.ExpirationSeconds != nil {
					opts.ExpirationSeconds = *src.ServiceAccountToken.ExpirationSeconds
				}
				var token string
				if token, err = ServiceAccountToken(ctx, client, pod.Namespace, sa, opts); err == nil {
					put(src.ServiceAccountToken.Path, []byte(token), nil, v.Projected.DefaultMode)
				}
			case src.DownwardAPI != nil:
				for _, it := range src.DownwardAPI.Items {
					if it.FieldRef == nil {
						return nil, nil, fmt.Errorf("downward API item %s: only fieldRef is supported", it.Path)
					}
					value, ferr := podField(pod, it.FieldRef.FieldPath)
					if ferr != nil {
						return nil, nil, ferr
					}
					put(it.Path, []byte(value), it.Mode, v.Projected.DefaultMode)
				}
			default:
				err = fmt.Errorf("unsupported projected source")
			}
		}
	default:
		err = fmt.Errorf("unsupported volume")
	}
	return files, modes, err
}
