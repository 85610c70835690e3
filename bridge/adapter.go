package bridge

import "github.com/acpbridge/acpbridge/bridge/acp"

// Adapter is the contract a Server serves, declared in package acp (see
// acp.Adapter and its optional interfaces), where adapters, which never
// import this package, can name it too. The alias lets callers write
// bridge.New(a) with bridge.Adapter, as before the contract moved.
type Adapter = acp.Adapter
