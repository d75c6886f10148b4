// Package bindata embeds the manifests of the stacks the operator deploys.
package bindata

import "embed"

//go:embed metrics nmstate
var fs embed.FS

// Asset returns the content of an embedded manifest, e.g. "nmstate/namespace.yaml".
func Asset(name string) ([]byte, error) {
	return fs.ReadFile(name)
}

// MustAsset is Asset for manifests that are known to exist.
func MustAsset(name string) []byte {
	b, err := Asset(name)
	if err != nil {
		panic(err)
	}
	return b
}

// Names lists the embedded files below dir, for tests.
func Names(dir string) ([]string, error) {
	entries, err := fs.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, dir+"/"+e.Name())
		}
	}
	return out, nil
}
