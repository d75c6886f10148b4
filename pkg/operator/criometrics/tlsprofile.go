package criometrics

import (
	"crypto/tls"
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/crypto"
)

// TLSArgs are kube-rbac-proxy's arguments for the cluster's TLS security
// profile (APIServer "cluster" spec.tlsSecurityProfile), which every OpenShift
// component serving TLS must follow. An unset or unknown profile is
// Intermediate, as the API documents.
func TLSArgs(profile *configv1.TLSSecurityProfile) ([]string, error) {
	spec, err := profileSpec(profile)
	if err != nil {
		return nil, err
	}
	if _, err := crypto.TLSVersion(string(spec.MinTLSVersion)); err != nil {
		return nil, fmt.Errorf("tlsSecurityProfile: %w", err)
	}
	args := []string{"--tls-min-version=" + string(spec.MinTLSVersion)}
	// Go does not let TLS 1.3 cipher suites be chosen; list only the 1.2 ones
	// and none at all when 1.2 is not allowed.
	if spec.MinTLSVersion != configv1.VersionTLS13 {
		suites := configurableSuites(crypto.OpenSSLToIANACipherSuites(spec.Ciphers))
		if len(suites) == 0 {
			return nil, fmt.Errorf("tlsSecurityProfile allows TLS 1.2 but names no cipher suite that Go supports")
		}
		args = append(args, "--tls-cipher-suites="+strings.Join(suites, ","))
	}
	return args, nil
}

// configurableSuites keeps the suites that Go lets a server choose: those of
// TLS 1.2 and older (the profiles also list TLS 1.3 suites, which Go always
// enables).
func configurableSuites(names []string) []string {
	tls12 := map[string]bool{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		for _, v := range s.SupportedVersions {
			if v <= tls.VersionTLS12 {
				tls12[s.Name] = true
			}
		}
	}
	var out []string
	for _, n := range names {
		if tls12[n] {
			out = append(out, n)
		}
	}
	return out
}

func profileSpec(profile *configv1.TLSSecurityProfile) (*configv1.TLSProfileSpec, error) {
	if profile == nil {
		return configv1.TLSProfiles[configv1.TLSProfileIntermediateType], nil
	}
	switch profile.Type {
	case configv1.TLSProfileOldType, configv1.TLSProfileIntermediateType, configv1.TLSProfileModernType:
		return configv1.TLSProfiles[profile.Type], nil
	case configv1.TLSProfileCustomType:
		if profile.Custom == nil {
			return nil, fmt.Errorf("tlsSecurityProfile type Custom has no custom profile")
		}
		return &profile.Custom.TLSProfileSpec, nil
	default:
		return configv1.TLSProfiles[configv1.TLSProfileIntermediateType], nil
	}
}
