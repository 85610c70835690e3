# acpbridge — build, test and demo. `make demo` and `make test` are the two
# set-up commands; everything else is for development.

GO        ?= go
BIN       := bin/acpbridge
# The version, commit and commit date the binary is stamped with
# (cmd/dev/buildinfo: the release tag, else v0.0.0-dev+COMMIT, +dirty for
# a changed tree); worked out once, and only by the targets that stamp.
buildinfo = $(or $(BUILDINFO),$(eval BUILDINFO := $(shell $(GO) run ./cmd/dev/buildinfo))$(BUILDINFO))
VERSION    = $(word 1,$(buildinfo))
LDFLAGS    = -s -w -X main.version=$(VERSION) -X main.commit=$(word 2,$(buildinfo)) -X main.date=$(word 3,$(buildinfo))
# GoReleaser, pinned, from the Go module proxy (v2.15 is the newest that
# builds with Go 1.25/1.26), into bin/tools.
GORELEASER_VERSION := v2.15.1
GORELEASER := bin/tools/goreleaser-$(GORELEASER_VERSION)
CACHE     := .cache
ACP_SDK   := @agentclientprotocol/sdk@2.4.0
SCHEMA    := $(CACHE)/acp-schema/v1/schema.json
SCHEMA_UNSTABLE := $(CACHE)/acp-schema/v1/schema.unstable.json
DEMO      ?= fixtures/claude/demo.txtar
PACE      ?= 15ms

.PHONY: all build demo test schema bench lint golden fuzz clean dist release dist-reproducible npm npm-check registry-check cross goreleaser

all: build

# A static binary (no libc needed where it runs); urfave_cli_no_docs drops
# man-page generation the bridge never uses (smaller, faster start).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -tags urfave_cli_no_docs -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/acpbridge

# The release archives, as a snapshot of this tree: dist/acpbridge_VERSION_OS_ARCH.tar.gz
# (.zip for windows) for darwin, linux and windows on amd64 and arm64, each
# with the static binary, LICENSE and README.md, and dist/checksums.txt
# (see .goreleaser.yaml). make release publishes the tag on HEAD
# (GITHUB_TOKEN in the environment).
GORELEASER_ENV = ACPBRIDGE_VERSION=$(VERSION) ACPBRIDGE_COMMIT=$(word 2,$(buildinfo)) \
	ACPBRIDGE_DATE=$(word 3,$(buildinfo)) ACPBRIDGE_EPOCH=$(word 4,$(buildinfo))
dist: $(GORELEASER)
	$(GORELEASER_ENV) $(GORELEASER) release --snapshot --clean --skip=publish
	@cd dist && ls -l *.tar.gz *.zip checksums.txt | awk '{print $$5, $$9}'

release: $(GORELEASER)
	$(GORELEASER_ENV) $(GORELEASER) release --clean

# Builds the archives twice and fails unless the checksums agree.
dist-reproducible: dist
	cp dist/checksums.txt bin/checksums.first
	$(GORELEASER_ENV) $(GORELEASER) release --snapshot --clean --skip=publish >/dev/null
	diff bin/checksums.first dist/checksums.txt && echo 'dist: the same commit gave the same bytes'

goreleaser: $(GORELEASER)
$(GORELEASER):
	@mkdir -p $(dir $@)
	GOBIN=$(abspath $(dir $@))/.install $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
	mv $(dir $@)/.install/goreleaser $@ && rmdir $(dir $@)/.install

# The npm packages (npx acpbridge): one per platform with its binary, from
# the archives of make dist, and the acpbridge wrapper that picks one; into
# dist/npm/*.tgz. npm-check installs them offline into an empty folder and
# runs the binary through npx.
npm: dist
	$(GO) run ./cmd/dev/npmpack -dist dist -out dist/npm
npm-check:
	ACPBRIDGE_DIST=$(abspath dist) $(GO) test -count=1 -run 'TestNPX' ./cmd/dev/npmpack/

# The registry entries against the registry's schema, and every archive
# they name against those make dist made.
registry-check:
	ACPBRIDGE_DIST=$(abspath dist) $(GO) test -count=1 ./registry/

# What can be checked of the other OSes here: the binary builds, and go
# vet (which type-checks every package with its tests) passes, for windows
# and darwin. cmd/dev/record, which records the real CLIs, is Unix only.
# The flags are those of the release build (.goreleaser.yaml), so that
# after make dist the packages the binary needs are already compiled.
CROSS_FLAGS := -trimpath -tags urfave_cli_no_docs
cross:
	@for os in windows darwin; do \
	  echo "cross: $$os"; \
	  GOOS=$$os GOARCH=amd64 CGO_ENABLED=0 $(GO) build $(CROSS_FLAGS) -o /dev/null ./cmd/acpbridge || exit 1; \
	  GOOS=$$os GOARCH=amd64 CGO_ENABLED=0 $(GO) vet $(CROSS_FLAGS) $$($(GO) list ./... | grep -v -e /cmd/dev/record$$) || exit 1; \
	done

# The main job with no wrapped CLI and no credentials: the bridge serves a
# recorded Claude Code session, driven by a small scripted ACP client that
# prints the conversation.
demo: build
	$(GO) run ./cmd/dev/acpdemo -fixture $(DEMO) -- ./$(BIN) --log-level warn replay --pace $(PACE) $(DEMO)

# Everything CI needs: the official ACP schema for conformance checks, then
# the whole suite under the race detector. cmd/dev/testreport runs go test -json
# and prints the package lines, the whole output of failing tests, the
# skipped tests with their reasons and "tests: N passed, N failed, N
# skipped"; it fails on any failure and, under CI=true, on any skip.
# Most end-to-end tests wait on real CLIs rather than compute, so four run
# at a time in a package even on two cores. Allocation counts (the
# passthrough's and the replay's per update) and the replay's peak RSS
# against its make bench target are checked in a second run without the
# race detector, which allocates for itself.
# The registry entries' archives are checked by make registry-check, once
# make dist has made them. e2e, whose tests run the real CLIs through the
# binary, may take more than go test's default 10 minutes on a busy
# machine, where that bound would fail every test still running.
test: schema
	$(GO) run ./cmd/dev/testreport -go $(GO) -- -race -count=1 -parallel 4 -timeout 20m -skip '^TestArchivesAreDist$$' ./...
	$(GO) run ./cmd/dev/testreport -go $(GO) -- -count=1 -run 'Allocations$$|^TestReplayPeakRSS$$' ./adapters/native/ ./adapters/replay/ ./e2e/

# The official ACP v1 JSON schema, and the unstable one beside it (the
# stable one plus the methods marked unstable, such as session/fork), from
# the npm package of the TypeScript SDK, into a git-ignored cache. The tests
# check against the copies pinned in bridge/acp/acptest/testdata (so they
# need no npm); with these files present a test there fails when a pinned
# copy differs from the package's.
schema: $(SCHEMA) $(SCHEMA_UNSTABLE)
$(SCHEMA) $(SCHEMA_UNSTABLE):
	@mkdir -p $(CACHE)/npm $(dir $@)
	npm install --silent --no-save --no-audit --no-fund --prefix $(CACHE)/npm $(ACP_SDK)
	cp $(CACHE)/npm/node_modules/@agentclientprotocol/sdk/schema/v1/$(notdir $@) $@

# The official ACP TypeScript SDK (pinned by e2e/http/package-lock.json) for
# the Streamable HTTP interop test of `acpbridge serve`.
.PHONY: e2e-deps
e2e-deps: e2e/http/node_modules/.package-lock.json
e2e/http/node_modules/.package-lock.json: e2e/http/package.json e2e/http/package-lock.json
	npm ci --silent --no-audit --no-fund --prefix e2e/http

# The pinned Claude Code CLI (npm @anthropic-ai/claude-code, its native
# binary) into .cache/claude, for the end-to-end tests of `acpbridge claude`
# (they skip without it outside CI). Idempotent: nothing is fetched when the
# pinned version is there.
.PHONY: claude-cli
claude-cli:
	scripts/install-claude.sh >/dev/null

# The pinned Codex CLI (npm @openai/codex, its native binary) into
# .cache/codex, for the real-Codex tests of `acpbridge codex`
# (fixtures/testsupport/codexenv; they fail under CI without it and skip elsewhere).
# Idempotent: nothing is fetched when the pinned version is there.
.PHONY: codex-cli
codex-cli:
	scripts/install-codex.sh >/dev/null

# The pinned native-ACP agent CLIs (Gemini CLI, Qwen Code with the node 22
# it needs, opencode, Copilot CLI) into .cache/agents/<name>, for the
# real-CLI tests (fixtures/testsupport/agentenv); they fail under CI without them and
# skip elsewhere. Idempotent, npm only, about 1.2 GB.
.PHONY: agent-clis
agent-clis:
	scripts/install-agents.sh >/dev/null

# The passthrough's latency figures are medians over 9 rounds (one turn
# straight from the scripted agent and one through the bridge each), and
# its in-process throughput is the 100,000-update turn of issue 9. The PTY
# figures (first chunk and turn end on the fake TUI, RSS per terminal
# session) come from adapters/pty and BenchmarkPTYSession.
bench: build
	{ $(GO) test -run '^$$' -bench . -skip '^Benchmark(Claude|Codex|PassthroughLatency)$$' -benchtime 2s -count 1 ./e2e/ ./adapters/pty/ && \
	  $(GO) test -run '^$$' -bench '^BenchmarkPassthroughLatency$$' -benchtime 9x -count 1 ./e2e/ && \
	  $(GO) test -run '^$$' -bench '^BenchmarkPassthroughTurn$$' -benchtime 5x -count 1 ./adapters/native/; } | $(GO) run ./cmd/dev/benchtable

# acpbridge on the real Claude Code CLI, side by side with the peer adapter
# (@agentclientprotocol/claude-agent-acp, pinned by bench/peer/package-lock.json)
# and with the raw CLI alone, in one run on the same CLI binary and the same
# scripted model server: CLAUDE_ROUNDS samples of each. The CLI comes from
# $$CLAUDE_BIN, else scripts/install-claude.sh installs the pinned one.
# ACPBRIDGE_BENCH_ENV='KEY=value ...' adds a fourth subject to the same
# rounds: acpbridge with those in its environment (to try a setting).
CLAUDE_ROUNDS ?= 32
.PHONY: bench-claude bench-peer
bench-claude: bench-peer
	CLAUDE_BIN="$${CLAUDE_BIN:-$$(scripts/install-claude.sh)}" \
	$(GO) test -v -run '^$$' -bench '^BenchmarkClaude$$' -benchtime $(CLAUDE_ROUNDS)x -count 1 -timeout 20m ./e2e/ | $(GO) run ./cmd/dev/benchtable

# The peer adapter, without the CLI binary its SDK would bring along: the
# benchmark points it at the same CLI as the others (CLAUDE_CODE_EXECUTABLE).
bench-peer: bench/peer/node_modules/.package-lock.json
bench/peer/node_modules/.package-lock.json: bench/peer/package.json bench/peer/package-lock.json
	npm ci --silent --no-audit --no-fund --omit=optional --prefix bench/peer

# acpbridge on the real Codex CLI side by side with the peer adapter
# (@agentclientprotocol/codex-acp, pinned by bench/peer/package-lock.json,
# run with CODEX_PATH at the same binary) and with the raw app-server driven
# directly, on the same binary and the same scripted Responses server:
# CODEX_ROUNDS samples of each (installs the pinned Codex and the peer).
CODEX_ROUNDS ?= 8
.PHONY: bench-codex
bench-codex: build codex-cli bench-peer
	$(GO) test -v -run '^$$' -bench '^BenchmarkCodex$$' -benchtime $(CODEX_ROUNDS)x -count 1 -timeout 20m ./e2e/ | $(GO) run ./cmd/dev/benchtable

# The pinned real Qwen Code two ways side by side, in the same rounds on
# the same scripted Chat Completions server: its native ACP through the
# passthrough (acpbridge qwen) and stream-JSON through the qwen dialect
# (acpbridge stream-json --dialect qwen). Start, first chunk, a 20,000-
# character turn, the bridge's and Qwen's peak RSS: QWEN_ROUNDS samples of
# each (docs/stream-json-dialects.md has the table).
QWEN_ROUNDS ?= 5
.PHONY: bench-qwen
bench-qwen: agent-clis
	$(GO) test -v -run '^$$' -bench '^BenchmarkQwen$$' -benchtime $(QWEN_ROUNDS)x -count 1 -timeout 30m ./e2e/

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet ./...
	@! git grep -n 'github.com/rs/zerolog/log"' -- '*.go' || { echo 'use a zerolog.Logger from Options, not the global logger'; exit 1; }

# Rewrite the `want` sections of the transcript goldens (every recording but
# the terminal ones, in adapters/replay) and the type goldens. Only packages that define -update: others reject the flag.
golden:
	$(GO) test ./bridge/acp ./adapters/claude ./adapters/replay -run 'Golden' -update

fuzz:
	$(GO) test ./internal/jsonrpc -run '^$$' -fuzz FuzzReadNDJSON -fuzztime 20s
	$(GO) test ./internal/jsonrpc -run '^$$' -fuzz FuzzReadContentLength -fuzztime 20s
	$(GO) test ./internal/jsonrpc -run '^$$' -fuzz FuzzDecodeMessage -fuzztime 20s
	$(GO) test ./internal/jsonrpc -run '^$$' -fuzz FuzzScanHead -fuzztime 20s
	$(GO) test ./internal/jsonrpc -run '^$$' -fuzz '^FuzzSplit$$' -fuzztime 20s
	$(GO) test ./internal/jsonscan -run '^$$' -fuzz '^FuzzScan$$' -fuzztime 20s
	$(GO) test ./bridge -run '^$$' -fuzz FuzzRequest -fuzztime 20s
	$(GO) test ./adapters/claude -run '^$$' -fuzz FuzzStreamJSONLine -fuzztime 20s
	$(GO) test ./adapters/claude -run '^$$' -fuzz FuzzScanDelta -fuzztime 20s
	$(GO) test ./bridge/acp -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime 20s
	$(GO) test ./bridge/acp -run '^$$' -fuzz '^FuzzAppendJSONText$$' -fuzztime 20s
	$(GO) test ./internal/recording -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 20s
	$(GO) test ./adapters/pty -run '^$$' -fuzz '^FuzzPTYChunking$$' -fuzztime 20s
	$(GO) test ./adapters/internal/readwindow -run '^$$' -fuzz '^FuzzRead$$' -fuzztime 20s

clean:
	rm -rf bin dist $(CACHE)
