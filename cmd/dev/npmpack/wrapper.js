#!/usr/bin/env node
// acpbridge through npm: this package holds no binary. npm installs, of
// the optional dependencies of this package, the one whose "os" and "cpu"
// match this machine; it carries the static acpbridge binary for it, and
// this script runs that binary with the same arguments, stdin, stdout and
// stderr (an editor speaks ACP on them), and exits as it exits.
"use strict";

const { spawn } = require("child_process");
const path = require("path");

const version = require("../package.json").version;
const platforms = __PLATFORMS__;
const key = `${process.platform}-${process.arch}`;
const pkg = platforms[key];

function fail(msg) {
  process.stderr.write(`acpbridge: ${msg}\n`);
  process.exit(1);
}

if (!pkg) {
  fail(`no acpbridge binary is published for ${key}; there are binaries for ${Object.keys(platforms).join(", ")}.` +
    " Build it from source with Go instead: https://github.com/acpbridge/acpbridge");
}

const exe = process.platform === "win32" ? "acpbridge.exe" : "acpbridge";
let bin;
try {
  bin = require.resolve(`${pkg}/bin/${exe}`);
} catch (err) {
  fail(`the package ${pkg}, which holds the binary for ${key}, is not installed.` +
    ` npm installs it with acpbridge unless optional dependencies are left out (--omit=optional, --no-optional).` +
    ` Install it with: npm install ${pkg}@${version}` +
    ` (or run: npx --package=acpbridge@${version} --package=${pkg}@${version} acpbridge ...)`);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

// The bridge stops every process it started when it is told to stop: pass
// the signals on rather than die and leave it running.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    try {
      child.kill(sig);
    } catch (_) {}
  });
}

child.on("error", (err) => fail(`cannot run ${bin}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
