#!/usr/bin/env bash
# Runs one recorded-format generator at the commit it names and copies what it wrote into the module test
# resources (formats/README.md). Usage: formats/record.sh GENERATOR [OUT]
#   GENERATOR  a folder of formats/generators, named <name>-<commit> (e.g. g1-be3765c)
#   OUT        where the generator writes (default: a temporary folder); the files are then copied to
#              schemas-avro/src/test/resources/recorded/<name>/contract, topology/.../gate, approver/.../approver,
#              notifier/.../notifier
# The commit is checked out in a temporary clone (git clone --shared: no network, this checkout untouched),
# schemas-avro's test Fill.java and the generator's files are copied in, and the generator runs as a test
# (mvn -o test of the modules it needs; nothing is installed). Needs the JDK and Maven, and the dependencies of
# that commit in the local Maven repository (-o; drop it by setting MVN_OFFLINE= to let Maven download them).
# RECORDED_COPY=no leaves the module resources as they are (to check that a generator still runs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
gen=${1:?usage: formats/record.sh GENERATOR [OUT]}
dir="$here/generators/$gen"
[ -d "$dir" ] || { echo "no generator $dir" >&2; exit 2; }
name=${gen%%-*}
commit=${gen#*-}
work=$(mktemp -d "${TMPDIR:-/tmp}/actiongate-recorded-$gen-XXXXXX")
out=${2:-$work/out}
mkdir -p "$out"
git clone -q --shared --no-checkout "$root" "$work/src"
git -C "$work/src" checkout -q "$commit"
# a generator's own files, and those of the shared folders its include.txt names (the same source run at
# several commits)
sources=("$dir")
if [ -f "$dir/include.txt" ]; then
  while IFS= read -r shared; do
    [ -n "$shared" ] && sources+=("$here/generators/$shared")
  done < "$dir/include.txt"
fi
modules=()
tests=()
for from in "${sources[@]}"; do
while IFS= read -r f; do
  rel=${f#"$from"/}
  mkdir -p "$work/src/$(dirname "$rel")"
  cp "$f" "$work/src/$rel"
  module=${rel%%/src/*}
  mkdir -p "$work/src/$module/src/test/java/io/actiongate/recorded"
  cp "$root/schemas-avro/src/test/java/io/actiongate/recorded/Fill.java" "$work/src/$module/src/test/java/io/actiongate/recorded/Fill.java"
  modules+=("$module")
  case "$(basename "$f")" in Record*) tests+=("$(basename "$f" .java)") ;; esac
done < <(find "$from" -name '*.java')
done
list=$(printf '%s\n' "${modules[@]}" | sort -u | paste -sd, -)
tests=$(printf '%s\n' "${tests[@]}" | sort -u | paste -sd, -)
echo "generator $gen: commit $commit, modules $list, tests $tests, output $out"
(cd "$work/src" && RECORDED_OUT="$out" mvn ${MVN_OFFLINE--o} -B -q -pl "$list" -am test -Dtest="$tests" \
    -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false -Djacoco.skip=true)
copy() { # from-subfolder module
  if [ "${RECORDED_COPY:-yes}" = yes ] && [ -d "$out/$1" ]; then
    dest="$root/$2/src/test/resources/recorded/$name-$commit/$1"
    mkdir -p "$dest"
    cp -R "$out/$1/." "$dest/"
    echo "  $1 -> ${dest#"$root"/}"
  fi
}
copy contract schemas-avro
copy gate topology
copy approver approver
copy notifier notifier
rm -rf "$work"
