//go:build windows

package main

import "os"

func stdin() *os.File { return os.Stdin }
