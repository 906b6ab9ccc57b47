# Jean-Claude — the project's vocabulary. `make run` and `make test` work on a
# fresh Debian machine as root: `deps` installs whatever is missing.

SHELL      := /bin/bash
GO         ?= go
TAGS       := webkit2_41
# Production builds leave HTTP/2 out of net/http (its nethttpomithttp2 tag):
# the app's HTTP is the MCP server and OpenCode's local servers, HTTP/1.1
# on 127.0.0.1, and the bundled HTTP/2 was 0.56 MB of the binary, which is
# resident in full (issue 20). Also in wails.json's build:tags.
PROD_TAGS  := $(TAGS),desktop,production,nethttpomithttp2
GOBIN      ?= $(shell $(GO) env GOPATH)/bin
WAILS      := $(GOBIN)/wails
WAILS_VER  := v2.15.0
VERSION    ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS    := -X main.version=$(VERSION)
BIN        := build/bin/jean-claude

# Debian packages: Wails on webkit2gtk-4.1, Xvfb + D-Bus for the window and
# notification tests, Debian's Chromium for the browser end-to-end tests.
APT_PKGS := build-essential pkg-config git libgtk-3-dev libwebkit2gtk-4.1-dev \
            xvfb xauth dbus dbus-x11 chromium x11-apps imagemagick xdotool \
            desktop-file-utils libgtk-3-bin

.PHONY: e2e-first-run screenshots-webkit screenshots-tooltips latency-webkit package install-user install-user-files uninstall-user icons test-package
.PHONY: run build deps deps-apt deps-wails deps-npm frontend bindings test test-go \
        test-frontend e2e cpu-webkit bench-webkit-fetch test-agents test-remote relay-bins bench bench-relay golden lint fmt clean bench-startup soak

## run: install what is missing, build, start the app
run: build
	./$(BIN)

## build: the production binary in build/bin/jean-claude
build: deps frontend
	$(GO) build -tags $(PROD_TAGS) -ldflags "$(LDFLAGS)" -o $(BIN) .

## deps: apt packages, the pinned wails CLI, npm dependencies (idempotent)
deps: deps-apt deps-wails deps-npm

deps-apt:
	@missing=""; for p in $(APT_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: apt-get install$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

deps-wails:
	@if ! [ -x "$(WAILS)" ] || ! "$(WAILS)" version 2>/dev/null | grep -q "$(WAILS_VER)"; then \
	  echo "deps: go install wails $(WAILS_VER)"; \
	  GOBIN=$(GOBIN) $(GO) install github.com/wailsapp/wails/v2/cmd/wails@$(WAILS_VER); \
	fi

deps-npm:
	@if ! [ -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then \
	  echo "deps: npm ci"; cd frontend && npm ci --no-audit --no-fund --loglevel=error; \
	fi

## frontend: type-check and build the frontend into frontend/dist
frontend: deps-npm
	cd frontend && npm run build

## icons: hicolor PNGs at the usual sizes from build/appicon.png (ImageMagick)
ICON_SIZES := 16 24 32 48 64 128 256 512
icons:
	@for s in $(ICON_SIZES); do mkdir -p build/icons/hicolor/$${s}x$${s}/apps; \
	  convert build/appicon.png -resize $${s}x$${s} build/icons/hicolor/$${s}x$${s}/apps/jean-claude.png; done

## package: build/bin/jean-claude_VERSION_amd64.deb (nfpm from the Go module proxy; nothing else downloaded)
DEB_VERSION ?= 0.1.0+git$(shell git rev-list --count HEAD 2>/dev/null || echo 0)
NFPM       := $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
DEB        := build/bin/jean-claude_$(DEB_VERSION)_amd64.deb
package: build icons
	desktop-file-validate build/linux/jean-claude.desktop
	rm -f build/bin/jean-claude_*.deb
	JC_DEB_VERSION=$(DEB_VERSION) $(NFPM) pkg --packager deb --config build/linux/nfpm.yaml --target $(DEB)
	@echo "package: $(DEB)"

## install-user: binary, desktop entry and icons under ~/.local (no root)
PREFIX ?= $(HOME)/.local
install-user: build icons install-user-files
install-user-files:
	install -Dm755 $(BIN) $(PREFIX)/bin/jean-claude
	mkdir -p $(PREFIX)/share/applications
	sed -e 's|^Exec=jean-claude$$|Exec=$(PREFIX)/bin/jean-claude|' -e 's|^TryExec=jean-claude$$|TryExec=$(PREFIX)/bin/jean-claude|' \
	  build/linux/jean-claude.desktop > $(PREFIX)/share/applications/jean-claude.desktop
	@for s in $(ICON_SIZES); do install -Dm644 build/icons/hicolor/$${s}x$${s}/apps/jean-claude.png \
	  $(PREFIX)/share/icons/hicolor/$${s}x$${s}/apps/jean-claude.png; done
	-@update-desktop-database $(PREFIX)/share/applications 2>/dev/null || true
	-@gtk-update-icon-cache -q -t $(PREFIX)/share/icons/hicolor 2>/dev/null || true
	@echo "installed: $(PREFIX)/bin/jean-claude and its desktop entry"

uninstall-user:
	rm -f $(PREFIX)/bin/jean-claude $(PREFIX)/share/applications/jean-claude.desktop
	rm -f $(PREFIX)/share/icons/hicolor/*/apps/jean-claude.png

## test-package: the .deb's contents (dpkg-deb -c), Depends, desktop-file-validate, install-user, gtk-launch under Xvfb
test-package: package
	sh build/linux/test-package.sh $(DEB)

## bindings: regenerate the TypeScript bindings (frontend/src/bridge/wailsjs)
bindings: deps-wails
	$(WAILS) generate module -tags "bindings,$(TAGS)"

## test: every test: lint, Go, frontend unit, browser e2e, real agent CLIs
test: deps frontend lint test-go test-frontend e2e e2e-first-run test-agents test-package test-remote
	@echo "make test: all suites passed"

test-go:
	$(GO) test -tags $(TAGS) -count=1 ./...

## relay-bins: the headless relay (no Wails/WebKitGTK, static) for hosts,
## beside the app binary, where remote.BinaryFor looks first
RELAY_PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
relay-bins:
	@for p in $(RELAY_PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w" \
	    -o $(dir $(BIN))jean-claude-relay-$$os-$$arch ./cmd/jean-claude-relay || exit 1; \
	done

## test-remote: remote hosts against a real sshd on 127.0.0.1 (Debian's
## openssh-server, installed if missing), with the real agent CLIs on the
## "host" when test-agents installed them; says SKIPPED loudly when it cannot be
REMOTE_PKGS := ./backend/remote/...
test-remote:
	@if ! [ -x /usr/sbin/sshd ]; then \
	  echo "test-remote: apt-get install openssh-server"; \
	  if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; \
	  { $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends openssh-server; } >/dev/null 2>&1 || true; \
	fi; \
	if ! [ -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null; then \
	  echo "################################################################"; \
	  echo "## test-remote SKIPPED: openssh-server could not be installed  ##"; \
	  echo "################################################################"; \
	  exit 0; \
	fi; \
	realcli=$(CURDIR)/.tools/agents/node_modules/.bin; [ -d "$$realcli" ] || realcli=; \
	JC_REALCLI_BIN=$$realcli JC_REQUIRE_SSHD=1 $(GO) test -tags $(TAGS) -count=1 -v $(REMOTE_PKGS) 2>&1 | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|SKIPPED|panic|^ +[a-z0-9_]+\.go:[0-9]+: ' ; exit $${PIPESTATUS[0]}

test-frontend: deps-npm
	cd frontend && npx vitest run

## e2e: the dev binary under Xvfb driven by playwright-core + Debian chromium
e2e: deps frontend
	$(GO) build -tags dev,$(TAGS) -o build/bin/jean-claude-dev .
	cd frontend && node e2e/run.mjs --no-build

## e2e-first-run: the first run end to end (empty profile → install from a local npm tarball → sign in in the terminal → result; single instance)
e2e-first-run: deps frontend
	$(GO) build -tags dev,$(TAGS) -o build/bin/jean-claude-dev .
	cd frontend && node e2e/first-run.mjs --no-build

## screenshots-webkit: every screen at 1000x700, 1280x800, 1920x1080, light and dark, from the REAL WebKitGTK window (docs/screenshots/webkit; ~5 min)
screenshots-webkit: deps frontend
	$(GO) build -tags dev,$(TAGS) -o build/bin/jean-claude-dev .
	cd frontend && node e2e/webkit-shots.mjs --no-build

## screenshots-tooltips: the app's tooltip at the window's edges and over a modal (REAL WebKitGTK window, real pointer) and a rule edited (Chromium), dark (docs/screenshots; ~3 min)
screenshots-tooltips: deps frontend
	$(GO) build -tags dev,$(TAGS) -o build/bin/jean-claude-dev .
	cd frontend && node e2e/webkit-tooltip.mjs --no-build && node e2e/tooltip-shots.mjs --no-build

## latency-webkit: time from a stored permission request to its card in the REAL window, first task of a fresh start vs the next ones
latency-webkit: deps frontend
	$(GO) build -tags dev,$(TAGS) -o build/bin/jean-claude-dev .
	cd frontend && node e2e/webkit-latency.mjs --no-build

## cpu-webkit: the REAL window's web process CPU and memory on a streamed task, the app as built vs JavaScriptCore's own tiering thresholds (~8 min)
cpu-webkit: deps frontend
	$(GO) build -tags dev,$(TAGS) -o build/bin/jean-claude-dev .
	cd frontend && node e2e/webkit-cpu.mjs --no-build --env "JSC_thresholdForOptimizeAfterWarmUp=1000,JSC_thresholdForOptimizeSoon=1000"

## bench-webkit-fetch: what the REAL WebKit window and the app keep per resource load: 40000 fetches vs one streamed fetch vs none (~5 min)
bench-webkit-fetch: deps
	TAGS=$(TAGS) bash bench/webkitfetch/run.sh 40000 fetch stream none

## test-agents: the real agent CLIs (claude, opencode, gemini, codex, codex-acp, claude-code-acp; npm-installed into .tools/agents) against a scripted model server
test-agents: deps
	GO=$(GO) sh backend/e2e/realcli/test-agents.sh

## bench: every Go benchmark (normalizers, orchestrator 20x5000, the relay's cost end to end and of the transport alone)
bench:
	$(GO) test -tags $(TAGS) -p 1 -run '^$$' -bench . -benchmem ./backend/...

## bench-relay: the relay's cost only: a task end to end (stored and emitted) and the transport alone, each against a direct pipe
bench-relay:
	$(GO) test -tags $(TAGS) -p 1 -run '^$$' -bench 'RelayEndToEnd|RelayVsPipe' -benchtime=1x ./backend/orchestrator/ ./backend/relay/

## bench-startup: the real app against a bare Wails app under Xvfb (time to window, first content, idle PSS)
BENCH_RUNS ?= 5
BENCH_NICE ?= 0
bench-startup: deps build
	$(GO) build -tags $(PROD_TAGS) -o build/bin/bench-bare ./bench/startup/bare
	$(GO) run ./bench/startup -floor build/bin/bench-bare -app $(BIN) -runs $(BENCH_RUNS) -nice $(BENCH_NICE)

## soak: five fake agents stream for SOAK_MINUTES (60) while the view switches; memory must come back within 10 %
soak: deps frontend
	$(GO) build -tags dev,$(TAGS) -o build/bin/jean-claude-dev .
	node scripts/soak/soak.mjs

## golden: rewrite golden files from the recordings
golden:
	$(GO) test -tags $(TAGS) ./backend/... -update

## lint: gofmt, go vet, tsc, bindings up to date
lint: deps-wails deps-npm
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet -tags $(TAGS) ./...
	@# the headless relay is built for macOS hosts too (relay-bins): it must compile there
	@for p in $(RELAY_PLATFORMS); do \
	  CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./cmd/jean-claude-relay ./backend/relay/ ./backend/agent/proc/ || exit 1; \
	done
	cd frontend && npx tsc --noEmit
	$(WAILS) generate module -tags "bindings,$(TAGS)" >/dev/null
	@git diff --exit-code --stat -- frontend/src/bridge/wailsjs || { echo "bindings are stale: run 'make bindings' and commit"; exit 1; }

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html frontend/distgz/assets frontend/distgz/index.html.gz
