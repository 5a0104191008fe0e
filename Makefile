# vmbench: build and test entry points. CI runs `make test` (see .ci/run).
#
#   make test     vet, lint, race-test everything (SQLite data tests without
#                 -race), then fuzz each input parser briefly; installs a
#                 MariaDB server binary, a PostgreSQL server binary, an
#                 OpenSSH server binary and Chromium (for the HTML report's
#                 browser test) first when none exists and we are root
#                 (Debian/Ubuntu)
#   make lint     golangci-lint with .golangci.yml (function length, copied
#                 code, os.Args/os.Exit/os/signal outside cmd/vmbench,
#                 complexity, errors checked and wrapped, enum switches,
#                 revive and staticcheck)
#   make fuzz     each fuzz target for FUZZTIME (seed corpora in the
#                 packages' testdata/fuzz)
#   make build    bin/vmbench
#   make agents   the in-guest agent binaries, cross-built with cgo off:
#                 bin/agents/vmbench-linux-amd64, vmbench-linux-arm64 and
#                 vmbench-windows-amd64.exe (AGENT_PLATFORMS lists them)
#   make bench    benchmarks only
#   make guest-image
#                 the Linux guest of container-backed vcsim VMs, built
#                 from Debian's packages (images/guest/build.sh: minimal
#                 Debian, coreutils, tar, sshd, MariaDB, PostgreSQL);
#                 installs docker.io and mmdebstrap and starts dockerd
#                 first when root; made once, reused while its recipe is
#                 unchanged (about 6 min under load, 727 MB)
#   make clean    remove build output
#
# Narrow a run with PKGS, e.g. make test PKGS='./dialect/... ./internal/testdb/...'

GO        ?= go
PKGS      ?= ./...
# -timeout bounds each package's test binary: cmd/vmbench's end-to-end
# campaigns take about 13 min under -race beside a CPU hog and passed 20 min
# (the default-sized bound) at load 20, a false failure; 45 min still ends a
# hang well inside CI's 90.
TESTFLAGS ?= -race -count=1 -timeout 45m
BENCHFLAGS ?= -run=NONE -bench=. -benchmem
BIN       ?= bin/vmbench
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null)
LDFLAGS   := $(if $(VERSION),-X main.version=$(VERSION))

# Integration tests start their own throwaway server through internal/testdb,
# which looks for these binaries on PATH and in these directories (keep both
# lists in step with internal/testdb/testdb.go).
SERVER_BINARIES ?= mariadbd mysqld
SERVER_DIRS     ?= /usr/sbin /usr/libexec /usr/local/mysql/bin
# mariadb-server-core has mariadbd and mariadb-install-db and nothing else: no
# init script, no service, no system datadir. mariadb-server is the fallback
# for distributions without it.
SERVER_PACKAGES ?= mariadb-server-core
POLICY_RC_D     ?= /usr/sbin/policy-rc.d

# PostgreSQL's tests start their own server through internal/testdb, which
# looks for postgres and initdb at $$VMBENCH_TESTDB_POSTGRES, beside postgres
# on PATH and in these directories, highest version first (keep in step with
# internal/testdb/postgres.go).
PG_DIRS     ?= $$(ls -d /usr/lib/postgresql/*/bin /usr/pgsql-*/bin 2>/dev/null | sort -t/ -k4 -rn) /usr/local/pgsql/bin
PG_PACKAGES ?= postgresql

# The SSH target's tests start their own sshd on a free loopback port through
# internal/sshtest, which looks for sshd at $$VMBENCH_SSHD, on PATH and in
# these directories (keep in step with internal/sshtest/sshtest.go).
SSHD_DIRS     ?= /usr/sbin /usr/local/sbin
SSHD_PACKAGES ?= openssh-server

# NO_SERVICE_STARTS, at the start of a recipe's shell line, puts in place a
# policy-rc.d that forbids service starts (unless one exists already) and
# removes it when the shell exits, so that installing a server package never
# starts the system's service (one may already listen on 3306 or 22 here).
define NO_SERVICE_STARTS
policy=$(POLICY_RC_D); created=; \
if [ ! -e "$$policy" ]; then \
  printf '#!/bin/sh\n# vmbench make test-deps: no service starts during the install\nexit 101\n' > "$$policy"; \
  chmod 755 "$$policy"; created=1; \
fi; \
trap 'if [ -n "$$created" ]; then rm -f "$$policy"; fi' EXIT
endef

# golangci-lint is a tool, not a dependency of vmbench: `go run pkg@version`
# downloads its modules and builds it once into the Go build cache (about 6
# minutes on a fresh machine's cold cache, 1 s after) without adding its
# modules to go.mod.
GOLANGCI_LINT ?= $(GO) run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0

# FUZZ lists the fuzz targets as package:Target; make fuzz runs each for
# FUZZTIME. A failure writes the input to the package's testdata/fuzz/Target
# (commit it with the fix: it then runs in every go test).
FUZZTIME ?= 3s
FUZZ ?= ./scenarios/spec:FuzzParse ./dialect:FuzzParseDSN ./vdbench/parmfile:FuzzParse \
	./vdbench/parmfile:FuzzParseSize ./sysbench:FuzzFlags ./tpcc:FuzzParseFlags

# AGENT_PLATFORMS are the GOOS/GOARCH pairs make agents builds; internal/deps's
# TestCrossBuild builds windows/amd64 in every make test (linux/arm64 compiles
# the same files as linux/amd64: TestNoArchSpecificFiles).
AGENT_PLATFORMS ?= linux/amd64 linux/arm64 windows/amd64
AGENT_DIR       ?= bin/agents

.PHONY: test test-deps test-deps-db test-deps-pg test-deps-sshd test-deps-chromium vet lint fuzz build agents bench guest-image guest-image-deps clean

# The SQLite data tests (a TPC-C warehouse is 600,000 rows) skip themselves
# under -race, where modernc.org/sqlite runs about 25 times slower, and so
# do the tests named *NoRace* (golden.SkipUnderRace: a cost under -race out
# of proportion, their concurrent code race-tested by others; and the tests
# of container-backed guests, internal/containertest, whose simulator races
# with itself); the second step runs both without it, each package within
# 30 min (the container campaigns take minutes each on a loaded machine).
NORACE_PKGS ?= ./tpcc/ ./cmd/vmbench/ ./scenarios/ ./vsphere/
NORACE_RUN  ?= SQLite|NoRace

test: test-deps
	$(GO) vet $(PKGS)
	$(MAKE) --no-print-directory lint
	$(GO) test $(TESTFLAGS) $(PKGS)
	$(GO) test -count=1 -timeout 30m -run '$(NORACE_RUN)' $(NORACE_PKGS)
	$(MAKE) --no-print-directory fuzz

vet:
	$(GO) vet $(PKGS)

# Always the whole tree: dupl compares packages with each other, and the
# exclusions in .golangci.yml warn when one matches nothing.
# --allow-serial-runners: two checkouts linted at once (git worktrees, a
# make test beside an editor's lint) wait for each other's lock instead of
# the second failing after 5 s with "parallel golangci-lint is running".
lint:
	$(GOLANGCI_LINT) run --allow-serial-runners ./...

# -parallel=2: the fuzz workers, one per core of a 2-core machine.
# -fuzzminimizetime=100x: the default (60s of minimizing each new input)
# would spend the whole of a short run minimizing the first one.
fuzz:
	@set -e; for t in $(FUZZ); do \
	  pkg=$${t%%:*}; name=$${t#*:}; \
	  echo "fuzz: $$name in $$pkg for $(FUZZTIME)"; \
	  $(GO) test -run=NONE -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=100x -parallel=2 $$pkg; \
	done

# One after the other, never in parallel (make -j): both may run apt-get.
test-deps:
	@$(MAKE) --no-print-directory test-deps-db
	@$(MAKE) --no-print-directory test-deps-pg
	@$(MAKE) --no-print-directory test-deps-sshd
	@$(MAKE) --no-print-directory test-deps-chromium

# test-deps-db makes sure a MariaDB/MySQL server binary exists, installing one
# (with NO_SERVICE_STARTS) when we are root on Debian/Ubuntu.
test-deps-db:
	@set -e; \
	found="$${VMBENCH_TESTDB_SERVER:-}"; \
	if [ -z "$$found" ]; then \
	  for b in $(SERVER_BINARIES); do \
	    if command -v "$$b" >/dev/null 2>&1; then found=$$(command -v "$$b"); break; fi; \
	    for d in $(SERVER_DIRS); do \
	      if [ -x "$$d/$$b" ]; then found="$$d/$$b"; break; fi; \
	    done; \
	    if [ -n "$$found" ]; then break; fi; \
	  done; \
	fi; \
	if [ -n "$$found" ]; then \
	  echo "test-deps: integration tests will use $$found"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "test-deps: no mariadbd/mysqld found; installing $(SERVER_PACKAGES) (the tests start their own server on a free port)"; \
	  $(NO_SERVICE_STARTS); \
	  apt-get update -q; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(SERVER_PACKAGES) \
	    || DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mariadb-server; \
	else \
	  echo "test-deps: no mariadbd/mysqld found and not root (or no apt-get): tests that need a MariaDB server will be skipped; install mariadb-server to run them"; \
	fi

# test-deps-pg makes sure a PostgreSQL server binary (postgres with initdb
# beside it) exists, installing Debian's postgresql (with NO_SERVICE_STARTS:
# the packaged cluster on 5432 is created but never started) when we are
# root on Debian/Ubuntu. internal/testdb runs its own server, as the user
# postgres, from a temp dir on a free port.
test-deps-pg:
	@set -e; \
	found="$${VMBENCH_TESTDB_POSTGRES:-}"; \
	if [ -z "$$found" ]; then \
	  for d in $$(dirname "$$(command -v postgres 2>/dev/null || echo /nonexistent/x)") $(PG_DIRS); do \
	    if [ -x "$$d/postgres" ] && [ -x "$$d/initdb" ]; then found="$$d"; break; fi; \
	  done; \
	fi; \
	if [ -n "$$found" ]; then \
	  echo "test-deps: PostgreSQL tests will use $$found"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "test-deps: no postgres/initdb found; installing $(PG_PACKAGES) (the tests start their own server on a free port)"; \
	  $(NO_SERVICE_STARTS); \
	  apt-get update -q; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(PG_PACKAGES); \
	else \
	  echo "test-deps: no postgres/initdb found and not root (or no apt-get): tests that need a PostgreSQL server will be skipped; install postgresql to run them"; \
	fi

# test-deps-sshd makes sure an sshd binary exists, installing openssh-server
# (with NO_SERVICE_STARTS: no system sshd is started on port 22) when we are
# root on Debian/Ubuntu, and makes sshd's privilege-separation directory,
# which a root sshd needs (internal/sshtest makes it too).
test-deps-sshd:
	@set -e; \
	found="$${VMBENCH_SSHD:-}"; \
	if [ -z "$$found" ]; then \
	  if command -v sshd >/dev/null 2>&1; then found=$$(command -v sshd); fi; \
	  for d in $(SSHD_DIRS); do \
	    if [ -z "$$found" ] && [ -x "$$d/sshd" ]; then found="$$d/sshd"; fi; \
	  done; \
	fi; \
	if [ -n "$$found" ]; then \
	  echo "test-deps: SSH tests will use $$found"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "test-deps: no sshd found; installing $(SSHD_PACKAGES) (the tests start their own sshd on a free loopback port)"; \
	  $(NO_SERVICE_STARTS); \
	  apt-get update -q; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(SSHD_PACKAGES); \
	  mkdir -p /run/sshd; \
	else \
	  echo "test-deps: no sshd found and not root (or no apt-get): the SSH target's tests will be skipped; install openssh-server to run them"; \
	fi

# The HTML report's test (scenarios/review TestReportInBrowser) loads the pages in
# headless Chromium, found as $$VMBENCH_CHROMIUM or on PATH under these names
# (keep in step with scenarios/review/review_doc_browser_test.go).
CHROMIUM_BINARIES ?= chromium chromium-browser google-chrome google-chrome-stable
CHROMIUM_PACKAGES ?= chromium

# test-deps-chromium makes sure a Chromium exists, installing Debian's
# chromium package when we are root on Debian/Ubuntu.
test-deps-chromium:
	@set -e; \
	found="$${VMBENCH_CHROMIUM:-}"; \
	for b in $(CHROMIUM_BINARIES); do \
	  if [ -z "$$found" ] && command -v "$$b" >/dev/null 2>&1; then found=$$(command -v "$$b"); fi; \
	done; \
	if [ -n "$$found" ]; then \
	  echo "test-deps: the HTML report's browser test will use $$found"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "test-deps: no Chromium found; installing $(CHROMIUM_PACKAGES) (the HTML report is checked in it headless)"; \
	  apt-get update -q; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(CHROMIUM_PACKAGES); \
	else \
	  echo "test-deps: no Chromium found and not root (or no apt-get): the HTML report's browser test will be skipped; install chromium to run it"; \
	fi

build:
	$(GO) build $(if $(LDFLAGS),-ldflags '$(LDFLAGS)') -o $(BIN) ./cmd/vmbench

agents:
	@set -e; for p in $(AGENT_PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; ext=; \
	  if [ "$$os" = windows ]; then ext=.exe; fi; \
	  out=$(AGENT_DIR)/vmbench-$$os-$$arch$$ext; \
	  echo "agents: $$out"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build $(if $(LDFLAGS),-ldflags '$(LDFLAGS)') -o $$out ./cmd/vmbench; \
	done

bench:
	$(GO) test $(BENCHFLAGS) $(PKGS)

# guest-image-deps makes sure docker (with its daemon running) and mmdebstrap
# exist, installing Debian's docker.io and mmdebstrap and starting dockerd
# (its log in /var/log/vmbench-dockerd.log) when we are root.
guest-image-deps:
	@set -e; \
	if ! command -v dockerd >/dev/null 2>&1 || ! command -v mmdebstrap >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "guest-image: installing docker.io and mmdebstrap"; \
	    $(NO_SERVICE_STARTS); \
	    apt-get update -q; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends docker.io mmdebstrap; \
	  else \
	    echo "guest-image: needs docker.io and mmdebstrap (install them as root)"; exit 1; \
	  fi; \
	fi; \
	if ! docker info >/dev/null 2>&1; then \
	  if [ "$$(id -u)" != 0 ]; then echo "guest-image: dockerd is not running (start it as root)"; exit 1; fi; \
	  echo "guest-image: starting dockerd"; \
	  nohup dockerd >/var/log/vmbench-dockerd.log 2>&1 & \
	  for i in $$(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done; \
	  docker info >/dev/null 2>&1 || { echo "guest-image: dockerd did not start: /var/log/vmbench-dockerd.log"; exit 1; }; \
	fi

guest-image: guest-image-deps
	images/guest/build.sh

clean:
	rm -rf bin
