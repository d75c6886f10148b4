package criometrics

import (
	"crypto/tls"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func argValue(args []string, flag string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestTLSArgs(t *testing.T) {
	custom := &configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType, Custom: &configv1.CustomTLSProfile{
		TLSProfileSpec: configv1.TLSProfileSpec{MinTLSVersion: configv1.VersionTLS12, Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256"}},
	}}
	for _, tc := range []struct {
		name        string
		profile     *configv1.TLSSecurityProfile
		wantMin     string
		wantCiphers bool
	}{
		{"unset is Intermediate", nil, "VersionTLS12", true},
		{"Old", &configv1.TLSSecurityProfile{Type: configv1.TLSProfileOldType}, "VersionTLS10", true},
		{"Intermediate", &configv1.TLSSecurityProfile{Type: configv1.TLSProfileIntermediateType}, "VersionTLS12", true},
		{"Modern has no 1.2 ciphers", &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType}, "VersionTLS13", false},
		{"unknown type is Intermediate", &configv1.TLSSecurityProfile{Type: "Future"}, "VersionTLS12", true},
		{"Custom", custom, "VersionTLS12", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, err := TLSArgs(tc.profile)
			require.NoError(t, err)
			min, _ := argValue(args, "--tls-min-version")
			assert.Equal(t, tc.wantMin, min)
			ciphers, ok := argValue(args, "--tls-cipher-suites")
			assert.Equal(t, tc.wantCiphers, ok)
			// Every suite must be one Go knows by its IANA name, as kube-rbac-proxy parses them.
			known := map[string]bool{}
			for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
				known[s.Name] = true
			}
			if ok {
				for _, s := range strings.Split(ciphers, ",") {
					assert.True(t, known[s], "unknown cipher suite %q", s)
					assert.False(t, strings.HasPrefix(s, "TLS_AES_") || strings.HasPrefix(s, "TLS_CHACHA20_"), "TLS 1.3 suite %q cannot be configured", s)
				}
			}
		})
	}
	args, _ := TLSArgs(custom)
	ciphers, _ := argValue(args, "--tls-cipher-suites")
	assert.Equal(t, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", ciphers)
}

func TestTLSArgsRejectsBrokenProfiles(t *testing.T) {
	_, err := TLSArgs(&configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType})
	assert.Error(t, err)
	_, err = TLSArgs(&configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType, Custom: &configv1.CustomTLSProfile{
		TLSProfileSpec: configv1.TLSProfileSpec{MinTLSVersion: configv1.VersionTLS12, Ciphers: []string{"NOT-A-CIPHER"}},
	}})
	assert.Error(t, err)
}
