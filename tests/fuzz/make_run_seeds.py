#!/usr/bin/env python3
"""Writes the format-4 seeds of the run-file fuzzer (tests/fuzz/seeds-run/v4_*.motusrun).

Short runs of example scenes written by `motus-cli simulate --run`, and hostile variants of
them with their checksum made right, so each reaches the check it is meant for (docs/run-file.md):
    python3 tests/fuzz/make_run_seeds.py build/release/bin/motus-cli
"""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "seeds-run")


def fnv1a(data):
    h = 14695981039346656037
    for b in data:
        h ^= b
        h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def sealed(body):
    """`body` (everything before the checksum) with its checksum."""
    return body + struct.pack("<Q", fnv1a(body))


def run(cli, scene, duration, dt):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.motusrun")
        subprocess.run([cli, "simulate", os.path.join(ROOT, "scenes", scene), "--duration", str(duration),
                        "--dt", str(dt), "--out", os.path.join(tmp, "run.csv"), "--run", path], check=True)
        with open(path, "rb") as f:
            return f.read()


CONTACT_BYTES = 2 * 4 + 11 * 8  # a contact force: two int32 part indices, 11 doubles
POINT_BYTES = 5 * 4 + 14 * 8  # a persistent contact point: five int32, 14 doubles


def layout(data):
    """Offsets of a format-4 file: (end of header, values per frame, frame count)."""
    scene = struct.unpack_from("<Q", data, 12)[0]
    start = 20 + scene + 4
    doubles = struct.unpack_from("<I", data, 20 + scene)[0]
    frames = struct.unpack_from("<Q", data, len(data) - 16)[0]
    return start, doubles, frames


def write(name, data):
    with open(os.path.join(OUT, "v4_" + name + ".motusrun"), "wb") as f:
        f.write(data)


def frames_of(body, start, doubles, frames):
    """(offset of the row, contact count, offset of its points' count) of every frame."""
    out = []
    at = start
    for _ in range(frames):
        n = struct.unpack_from("<I", body, at + 8 * doubles)[0]
        points = at + 8 * doubles + 4 + n * CONTACT_BYTES
        m = struct.unpack_from("<I", body, points)[0]
        out.append((at, n, points, m))
        at = points + 4 + m * POINT_BYTES
    return out


def main():
    cli = sys.argv[1]
    pendulum = run(cli, "pendulum.json", 0.02, 0.002)
    cam = run(cli, "cam_follower.json", 0.01, 0.002)
    write("pendulum", pendulum)
    write("cam_follower", cam)
    write("four_bar", run(cli, "four_bar.json", 0.02, 0.002))
    write("two_link_arm_pd", run(cli, "two_link_arm_pd.json", 0.02, 0.002))

    body = pendulum[:-8]
    start, doubles, frames = layout(pendulum)
    row = 8 * doubles + 8  # a frame of the pendulum: its row, no contact force, no contact point
    write("future_version", sealed(body[:8] + struct.pack("<I", 5) + body[12:]))
    write("frames_huge", sealed(body[:-8] + struct.pack("<Q", 2**63)))
    write("frames_one_more", sealed(body[:-8] + struct.pack("<Q", frames + 1)))
    write("frames_one_fewer", sealed(body[:-8] + struct.pack("<Q", frames - 1)))
    write("trailer_missing", pendulum[:-16])
    write("last_frame_cut", sealed(body[:start + (frames - 1) * row + 9] + struct.pack("<Q", frames)))
    last = start + (frames - 1) * row
    write("last_frame_nan", sealed(body[:last] + struct.pack("<d", float("nan")) + body[last + 8:]))
    write("last_frame_time_1e300", sealed(body[:last] + struct.pack("<d", 1e300) + body[last + 8:]))
    count = start + 8 * doubles  # the contact count of frame 0
    write("contact_count_huge", sealed(body[:count] + struct.pack("<I", 0xFFFFFFFF) + body[count + 4:]))
    write("values_zero", sealed(body[:start - 4] + struct.pack("<I", 0) + body[start:]))

    # The cam follower: a frame with contacts, its first contact naming no part; its first
    # persistent contact point naming no pair of parts, or announcing more points than there are.
    cbody = cam[:-8]
    cstart, cdoubles, cframes = layout(cam)
    with_contacts = [f for f in frames_of(cbody, cstart, cdoubles, cframes) if f[1] and f[3]]
    if not with_contacts:
        sys.exit("no frame of the cam run has contacts: make the run longer")
    at, _, points, _ = with_contacts[0]
    part = at + 8 * cdoubles + 4
    write("contact_names_no_part", sealed(cbody[:part] + struct.pack("<i", 999) + cbody[part + 4:]))
    write("contact_negative_part", sealed(cbody[:part] + struct.pack("<i", -1) + cbody[part + 4:]))
    first = points + 4  # partA of the first point
    write("contact_point_names_no_pair",
          sealed(cbody[:first] + struct.pack("<ii", 1, 1) + cbody[first + 8:]))
    write("contact_point_count_huge",
          sealed(cbody[:points] + struct.pack("<I", 0x7FFFFFFF) + cbody[points + 4:]))

    # The double four-bar through its first flat position (rk4): frames keep the solver's memory
    # of it (State::solverMemory, the last values of each row: best rank, rows dropped as bits,
    # best pivots). Its last frame's memory made nonsense, for the continuation to ignore.
    nfb = run_benchmark(cli, "n_four_bar.json", 0.6, 0.002, "rk4", 0.05)
    write("n_four_bar_rk4", nfb)
    nbody = nfb[:-8]
    nstart, ndoubles, nframes = layout(nfb)
    rows = 7 * 5  # seven revolute joints
    memory = 1 + (rows + 51) // 52 + rows
    last = nstart + (nframes - 1) * (8 * ndoubles + 8)
    mem = last + 8 * (ndoubles - memory)
    garbage = [3.0, float("nan"), 2.0**60] + [float("inf"), -1.0, 1e300] * rows
    write("n_four_bar_memory_nonsense",
          sealed(nbody[:mem] + struct.pack("<%dd" % memory, *garbage[:memory]) + nbody[mem + 8 * memory:]))


def run_benchmark(cli, scene, duration, dt, integrator, every):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.motusrun")
        subprocess.run([cli, "simulate", os.path.join(ROOT, "scenes", "benchmarks", scene), "--duration",
                        str(duration), "--dt", str(dt), "--output-dt", str(every), "--integrator",
                        integrator, "--out",
                        os.path.join(tmp, "run.csv"), "--run", path], check=True)
        with open(path, "rb") as f:
            return f.read()


if __name__ == "__main__":
    main()
