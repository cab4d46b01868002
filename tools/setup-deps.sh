#!/usr/bin/env bash
# Installs the Debian 12 packages Motus needs to build, test and run, and nothing else.
# Idempotent: when every package is present it prints one line and touches nothing
# (no apt-get update, no network).
set -euo pipefail

# Build tools and libraries (all found by CMake's find_package).
packages=(
    build-essential cmake ninja-build ccache pkg-config
    qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev
    libopenscenegraph-dev
    # Video export (File ▸ Export Video…, motus-cli render): FFmpeg's libraries.
    libavcodec-dev libavformat-dev libswscale-dev libavutil-dev
    libbullet-dev libeigen3-dev
    nlohmann-json3-dev libmuparser-dev libcli11-dev libassimp-dev liburdfdom-dev
    # MJCF (MuJoCo) robot descriptions, read by MuJoCo's own compiler.
    libmujoco-dev
    # SDF models and worlds (Gazebo's format).
    libsdformat-dev
    # CAD assemblies (STEP) through OpenCASCADE; its CMake targets name TBB's libraries.
    libocct-data-exchange-dev libocct-modeling-algorithms-dev libocct-ocaf-dev libtbb-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    # Running the GUI and its tests without a screen: a virtual X server, Mesa's
    # software OpenGL, and a font for Qt text.
    xvfb xauth libgl1-mesa-dri fonts-dejavu-core
    # The crash-recovery test types into a running motus as a user would (X test events).
    xdotool
    # Checking the scene files against resources/scene.schema.json.
    python3 python3-jsonschema
    # The Python module (docs/python.md) and its tests; studies' progress bars (tqdm), studies
    # on a Dask cluster (python3-distributed), and the examples' plots (matplotlib).
    python3-dev pybind11-dev python3-numpy python3-pytest python3-pandas
    python3-tqdm python3-distributed python3-matplotlib
    # The scene loader's fuzzer (libFuzzer needs clang).
    clang libclang-rt-14-dev
    # The layout check of every C++ source (tools/check_format.sh).
    clang-format
)

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = "installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "motus setup: all ${#packages[@]} packages present"
    exit 0
fi

echo "motus setup: installing ${#missing[@]} missing packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "motus setup: error: need root (or sudo) to install: ${missing[*]}" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
