// SPDX-FileCopyrightText: Copyright 2015-2025 go-swagger maintainers
// SPDX-License-Identifier: Apache-2.0

// Package cmdutils brings helpers for CLIs produced by go-openapi
package cmdutils
