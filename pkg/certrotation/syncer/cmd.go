package syncer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// NewCommand returns the cert-syncer subcommand.
func NewCommand() *cobra.Command {
	cfg := Config{
		CertFileName:   DefaultCertFileName,
		KeyFileName:    DefaultKeyFileName,
		ResyncInterval: DefaultResyncInterval,
	}
	var healthAddr string

	cmd := &cobra.Command{
		Use:   "cert-syncer",
		Short: "Copy the CRI-O metrics serving certificate from a mounted Secret to the host",
		Long: `cert-syncer watches a mounted Secret volume and copies its certificate and
key to a host directory whenever they change, so that CRI-O reloads its
metrics serving certificate. A pair that does not parse, does not match or
is not valid now is never written; the destination keeps the previous pair.
Existing destination files are rewritten in place (CRI-O watches their
inodes), the key first and the certificate last; nothing is written when
the destination already holds the same bytes and modes (key 0600,
certificate 0644).

It exits non-zero only when the source or destination directory does not
exist (a volume is missing) or the flags are invalid; everything else is
logged and retried.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := New(cfg, clock.RealClock{})
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			if healthAddr != "" {
				shutdown, err := serveHealth(healthAddr, s)
				if err != nil {
					return err
				}
				defer shutdown()
			}
			return s.Run(ctx)
		},
	}

	fs := cmd.Flags()
	fs.StringVar(&cfg.SourceDir, "source-dir", "", "Directory of the mounted Secret holding the certificate and key (required).")
	fs.StringVar(&cfg.DestDir, "dest-dir", "", "Host directory to copy the certificate and key to (required).")
	fs.StringVar(&cfg.CertFileName, "cert-file-name", cfg.CertFileName, "File name of the certificate in both directories.")
	fs.StringVar(&cfg.KeyFileName, "key-file-name", cfg.KeyFileName, "File name of the private key in both directories.")
	fs.DurationVar(&cfg.ResyncInterval, "resync-interval", cfg.ResyncInterval, "Period of the re-check that backs up the file watch.")
	fs.StringVar(&healthAddr, "health-listen-address", "", `Address to serve /healthz on over HTTP, e.g. "127.0.0.1:9639"; empty disables it.`)
	_ = cmd.MarkFlagRequired("source-dir")
	_ = cmd.MarkFlagRequired("dest-dir")
	return cmd
}

// serveHealth serves /healthz on addr and returns a function that stops it.
// /healthz answers 200 while the sync loop runs (a bad Secret is not a
// reason to restart the container, so sync errors are reported in the body
// only) and 503 otherwise.
func serveHealth(addr string, s *Syncer) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("health listen address %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", s.healthz)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       5 * time.Second,
		WriteTimeout:      5 * time.Second,
		MaxHeaderBytes:    8 << 10,
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "Health server stopped", "address", addr)
		}
	}()
	klog.InfoS("Serving health checks", "address", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

func (s *Syncer) healthz(w http.ResponseWriter, _ *http.Request) {
	st := s.Status()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if !st.Running {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "not running")
		return
	}
	fmt.Fprintln(w, "ok")
	if !st.Watching {
		fmt.Fprintln(w, "watch: unavailable, re-checking every resync interval")
	}
	if !st.LastSuccess.IsZero() {
		fmt.Fprintf(w, "last successful sync: %s\n", st.LastSuccess.UTC().Format(time.RFC3339))
	}
	if st.LastError != "" {
		fmt.Fprintf(w, "last sync error: %s\n", st.LastError)
	}
}
