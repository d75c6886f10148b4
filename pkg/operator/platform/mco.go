package platform

import (
	"encoding/json"
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// MCO's objects are read through the dynamic client (the API may not be
// served, and no typed informer of them runs); they become openshift/api's
// types here, in one place, so that no caller walks unstructured maps.

// Typed converts an object of the dynamic client to T; fields T does not
// know are dropped.
func Typed[T any](u *unstructured.Unstructured) (*T, error) {
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return nil, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return out, nil
}

// TypedList converts each item of a list.
func TypedList[T any](l *unstructured.UnstructuredList) ([]*T, error) {
	out := make([]*T, 0, len(l.Items))
	for i := range l.Items {
		t, err := Typed[T](&l.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Ignition is the part of a MachineConfig's Ignition config (spec.config,
// a raw extension in openshift/api) that the operator reads: the files and
// the systemd units, as Ignition's spec 3 names them.
type Ignition struct {
	Storage struct {
		Files []IgnitionFile `json:"files,omitempty"`
	} `json:"storage,omitempty"`
	Systemd struct {
		Units []IgnitionUnit `json:"units,omitempty"`
	} `json:"systemd,omitempty"`
}

// IgnitionFile is a file of an Ignition config; Source is its data URL.
type IgnitionFile struct {
	Path     string `json:"path"`
	Contents struct {
		Source string `json:"source,omitempty"`
	} `json:"contents,omitempty"`
}

// IgnitionUnit is a systemd unit of an Ignition config.
type IgnitionUnit struct {
	Name     string `json:"name"`
	Contents string `json:"contents,omitempty"`
}

// IgnitionOf reads a MachineConfig's Ignition config; an empty config is
// an empty Ignition.
func IgnitionOf(mc *mcfgv1.MachineConfig) (Ignition, error) {
	var out Ignition
	if len(mc.Spec.Config.Raw) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(mc.Spec.Config.Raw, &out); err != nil {
		return out, fmt.Errorf("MachineConfig %s spec.config: %w", mc.Name, err)
	}
	return out, nil
}
