package features

import "testing"

func TestIncludes(t *testing.T) {
	for _, tc := range []struct {
		annotation string // "" for none
		set        FeatureSet
		want       bool
	}{
		{"", "Default", true},
		{"Default", "Default", true},
		{"Default", "TechPreviewNoUpgrade", false},
		{"CustomNoUpgrade,DevPreviewNoUpgrade,TechPreviewNoUpgrade", "TechPreviewNoUpgrade", true},
		{"CustomNoUpgrade,DevPreviewNoUpgrade,TechPreviewNoUpgrade", "Default", false},
	} {
		annotations := map[string]string{"include.release.openshift.io/self-managed-high-availability": "true"}
		if tc.annotation != "" {
			annotations[FeatureSetAnnotation] = tc.annotation
		}
		if got := Includes(annotations, tc.set); got != tc.want {
			t.Errorf("%q on %s: %v, want %v", tc.annotation, tc.set, got, tc.want)
		}
	}
}
