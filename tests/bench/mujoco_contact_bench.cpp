// #49's scale scenes in MuJoCo, beside BM_ContactScatter and BM_ChainThroughPile: the same
// SceneSpec (tests/support/contact_scenes.h) written as MJCF — every part a body with a free
// joint and its shape as a geom of the same size, pose and density; the ground's plane a world
// geom; μ = 0.5 (MuJoCo's default condim 3: sliding friction only, as
// Motus); a 1 ms step and MuJoCo's defaults otherwise (Euler, Newton solver, pyramidal cones).
// The chain is a tree of ball joints under its head, whose front end an equality `connect`
// holds to a mocap body moved at the scene's speed each step (MuJoCo's way to drag a part; its
// soft constraint lets the head lag). Counters as Motus's: µs per step, and at the end the
// largest speed, the deepest penetration and the parts that fell through the floor.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include "tests/support/contact_scenes.h"

namespace {

using namespace engine;

struct ModelDeleter {
    void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
    void operator()(mjData* d) const { mj_deleteData(d); }
};

std::string vec(const Vec3& v) {
    std::ostringstream s;
    s.precision(17);
    s << v.x() << ' ' << v.y() << ' ' << v.z();
    return s.str();
}

std::string quat(const Quat& q) {
    std::ostringstream s;
    s.precision(17);
    s << q.w() << ' ' << q.x() << ' ' << q.y() << ' ' << q.z();
    return s.str();
}

// A shape as an MJCF geom (its frame in the part's), with the given density.
std::string geom(const Shape& shape, double density, const std::string& extra = "") {
    std::ostringstream s;
    s << "<geom pos=\"" << vec(shape.X_PG.p) << "\" quat=\"" << quat(shape.X_PG.R)
      << "\" density=\"" << density << "\" friction=\"0.5 0 0\" " << extra;
    switch (shape.type) {
    case ShapeType::Box:
        s << " type=\"box\" size=\"" << vec(0.5 * shape.size) << '"';
        break;
    case ShapeType::Sphere:
        s << " type=\"sphere\" size=\"" << shape.radius << '"';
        break;
    case ShapeType::Capsule:
        s << " type=\"capsule\" size=\"" << shape.radius << ' ' << 0.5 * shape.length << '"';
        break;
    case ShapeType::Cylinder:
        s << " type=\"cylinder\" size=\"" << shape.radius << ' ' << 0.5 * shape.length << '"';
        break;
    case ShapeType::Plane:
        s << " type=\"plane\" size=\"0 0 1\"";
        break;
    default:
        break;
    }
    s << "/>\n";
    return s.str();
}

// The free parts of `spec` (density from the part, 1 kg boxes of pile-K as density 1000).
std::string freeBody(const Part& part) {
    const double density = part.density ? *part.density : part.mass / 1e-3;
    std::string body = "<body pos=\"" + vec(part.X_WP.p) + "\" quat=\"" + quat(part.X_WP.R) +
                       "\"><freejoint/>" + geom(part.shapes.front(), density) + "</body>\n";
    return body;
}

std::unique_ptr<mjModel, ModelDeleter> load(const std::string& xml, const std::string& stem,
                                            benchmark::State& state) {
    const std::filesystem::path path = std::filesystem::temp_directory_path() / (stem + ".xml");
    std::ofstream(path, std::ios::binary) << xml;
    char message[1000] = "";
    std::unique_ptr<mjModel, ModelDeleter> model(
        mj_loadXML(path.c_str(), nullptr, message, sizeof message));
    std::filesystem::remove(path);
    if (!model) state.SkipWithError(message);
    return model;
}

// MuJoCo 2.2.2 keeps J M⁻¹ Jᵀ as a dense njmax × njmax matrix (efc_AR) whatever the solver:
// room for `rows` constraint rows (four per contact: pyramidal friction, condim 3) and
// `contacts` contacts.
std::string header(int rows, int contacts) {
    return "<mujoco><option timestep=\"0.001\" gravity=\"0 0 -9.81\"/><size njmax=\"" +
           std::to_string(rows) + "\" nconmax=\"" + std::to_string(contacts) + "\"/><worldbody>\n";
}

void counters(benchmark::State& state, const mjModel* m, const mjData* d, double seconds,
              int steps) {
    double speed = 0.0, depth = 0.0;
    int fell = 0;
    for (int j = 0; j < m->njnt; ++j) {
        if (m->jnt_type[j] != mjJNT_FREE) continue;
        const mjtNum* p = d->qpos + m->jnt_qposadr[j];
        const mjtNum* v = d->qvel + m->jnt_dofadr[j];
        speed = std::max(speed, std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        if (p[2] < 0.0) ++fell;
    }
    for (int c = 0; c < d->ncon; ++c) depth = std::max(depth, -d->contact[c].dist);
    state.counters["us_per_step"] = 1e6 * seconds / steps;
    state.counters["max_speed"] = speed;
    state.counters["max_depth_m"] = depth;
    state.counters["fell"] = fell;
    state.counters["contacts"] = d->ncon;
    // Steps whose constraints or contacts did not fit (MuJoCo then drops them).
    state.counters["full_warnings"] =
        d->warning[mjWARN_CNSTRFULL].number + d->warning[mjWARN_CONTACTFULL].number;
}

void BM_MujocoScatter(benchmark::State& state) {
    const int parts = static_cast<int>(state.range(0));
    if (parts > 2000) {  // 10,000 parts settle on ~25,000 contacts: efc_AR of 100,000² doubles
        state.SkipWithError("MuJoCo 2.2.2's dense efc_AR (njmax^2 doubles) would take 80 GB");
        return;
    }
    const SceneSpec spec = test::scatter(parts);
    std::string xml = header(7 * parts, 3 * parts);
    for (const Shape& shape : spec.parts.front().shapes) xml += geom(shape, 1000.0);
    for (std::size_t p = 1; p < spec.parts.size(); ++p) xml += freeBody(spec.parts[p]);
    xml += "</worldbody></mujoco>\n";
    const auto model = load(xml, "motus_scatter_twin", state);
    if (!model) return;
    std::unique_ptr<mjData, DataDeleter> data(mj_makeData(model.get()));
    double seconds = 0.0;
    const int steps = 3000;
    for (auto _ : state) {
        mj_resetData(model.get(), data.get());
        const auto start = std::chrono::steady_clock::now();
        for (int k = 0; k < steps; ++k) mj_step(model.get(), data.get());
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    counters(state, model.get(), data.get(), seconds, steps);
}
BENCHMARK(BM_MujocoScatter)
    ->Arg(1000)
    ->Arg(10000)
    ->ArgName("parts")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

void BM_MujocoChainThroughPile(benchmark::State& state) {
    const int links = static_cast<int>(state.range(0)), boxes = static_cast<int>(state.range(1));
    const double speed = 1.0;
    const SceneSpec spec = test::chainThroughPile(links, boxes, speed);
    std::string xml = header(4000, 1500);
    xml += geom(spec.parts.front().shapes.front(), 1000.0);
    const Part* tractor = nullptr;
    std::vector<const Part*> chain;
    for (std::size_t p = 1; p < spec.parts.size(); ++p) {
        const Part& part = spec.parts[p];
        if (part.frameMotion)
            tractor = &part;
        else if (part.name.rfind("link", 0) == 0)
            chain.push_back(&part);
        else
            xml += freeBody(part);
    }
    if (!tractor || chain.empty()) {
        state.SkipWithError("the chain scene has no tractor or no links");
        return;
    }
    xml += "<body name=\"tractor\" mocap=\"true\" pos=\"" + vec(tractor->X_WP.p) + "\"/>\n";
    // Nested: each link a child of the one before, its frame relative to its parent's.
    Transform parentPose;  // world
    for (std::size_t k = 0; k < chain.size(); ++k) {
        const Part& link = *chain[k];
        const Transform local = parentPose.inverse() * link.X_WP;
        xml += "<body name=\"" + link.name + "\" pos=\"" + vec(local.p) + "\" quat=\"" +
               quat(local.R) + "\">";
        xml += k == 0 ? std::string("<freejoint/>")
                      : "<joint type=\"ball\" pos=\"" + vec(link.markers.front().X_PM.p) + "\"/>";
        xml += geom(link.shapes.front(), *link.density);
        parentPose = link.X_WP;
    }
    for (std::size_t k = 0; k < chain.size(); ++k) xml += "</body>";
    xml += "\n</worldbody><equality><connect body1=\"" + chain.front()->name +
           "\" body2=\"tractor\" anchor=\"" + vec(chain.front()->markers.front().X_PM.p) +
           "\"/></equality></mujoco>\n";
    const auto model = load(xml, "motus_chain_twin", state);
    if (!model) return;
    std::unique_ptr<mjData, DataDeleter> data(mj_makeData(model.get()));
    double seconds = 0.0;
    const int steps = 4000;
    for (auto _ : state) {
        mj_resetData(model.get(), data.get());
        const auto start = std::chrono::steady_clock::now();
        for (int k = 0; k < steps; ++k) {
            data->mocap_pos[0] = tractor->X_WP.p.x() + speed * data->time;
            mj_step(model.get(), data.get());
        }
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    counters(state, model.get(), data.get(), seconds, steps);
    state.counters["head_lag_m"] =
        data->mocap_pos[0] - data->xpos[3 * mj_name2id(model.get(), mjOBJ_BODY, "link0")] - 0.05;
}
BENCHMARK(BM_MujocoChainThroughPile)
    ->Args({30, 100})
    ->ArgNames({"links", "boxes"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
