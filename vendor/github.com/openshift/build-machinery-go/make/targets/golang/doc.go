// required for gomod to pull in packages.

package alpha_build_machinery
