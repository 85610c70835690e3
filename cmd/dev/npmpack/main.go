// Command npmpack makes the npm packages of acpbridge from the release
// archives of make dist, so that `npx acpbridge ...` runs the static binary
// with no build step and no download at run time. It follows the pattern
// esbuild and Biome use: one package per platform, holding the binary and
// marked with npm's "os" and "cpu", and a wrapper package, acpbridge, that
// lists them all as optionalDependencies (npm installs only the one that
// fits the machine) and whose bin script runs it.
//
//	npmpack -dist dist -out dist/npm
//
// It writes OUT/acpbridge-VERSION.tgz and OUT/acpbridge-OS-CPU-VERSION.tgz
// for every archive found; the tarballs are what `npm pack` makes of such
// a folder and what `npm publish` takes. They are reproducible: every
// entry has npm's fixed date, in a fixed order.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	dist := flag.String("dist", "dist", "the folder holding the release archives (make dist)")
	out := flag.String("out", "dist/npm", "where to write the package tarballs")
	flag.Parse()
	written, err := pack(*dist, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "npmpack:", err)
		os.Exit(1)
	}
	for _, w := range written {
		fmt.Println(w)
	}
}
