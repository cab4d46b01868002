// The engine for Python: `motus._motus`, wrapped by the package `motus` (app/python/motus/,
// docs/python.md). Scenes as the engine reads them (every check on a file applies to a dict),
// runs through the same runtime and the same columns as `motus-cli simulate` (the same doubles
// as its CSV), a stepping simulator for control loops. The GIL is released while the engine
// computes; Ctrl+C stops a run and keeps what was computed; no engine error reaches Python as
// anything but an exception.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "engine/analysis/assembly.h"
#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/kinematic_analysis.h"
#include "engine/analysis/modes.h"
#include "engine/analysis/statics.h"
#include "engine/dynamics/dynamics.h"
#include "engine/io/csv_export.h"
#include "engine/io/mechanism_info.h"
#include "engine/io/run_file.h"
#include "engine/io/scene_json.h"
#include "engine/io/scene_overrides.h"
#include "engine/model/model.h"
#include "engine/model/run_options.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "engine/solver/worker_pool.h"
#include "engine/version.h"

namespace py = pybind11;

namespace {

// motus.SceneError (a ValueError): the first error's JSON path in `path`, its reason in
// `reason`, every diagnostic in `diagnostics` as (severity, path, message).
py::object& sceneErrorType() {
    static py::object type;
    return type;
}

[[noreturn]] void raiseSceneError(const engine::Diagnostics& diagnostics,
                                  const std::string& context) {
    const engine::Diagnostic* first = nullptr;
    for (const engine::Diagnostic& d : diagnostics)
        if (d.severity == engine::Severity::Error) {
            first = &d;
            break;
        }
    const std::string path = first ? first->where : "";
    const std::string reason = first ? first->message : "the scene was refused";
    std::string text = context;
    if (!path.empty()) text += (text.empty() ? "" : ": ") + path;
    text += (text.empty() ? "" : ": ") + reason;
    py::gil_scoped_acquire gil;
    py::object error = sceneErrorType()(text);
    error.attr("path") = path;
    error.attr("reason") = reason;
    py::list all;
    for (const engine::Diagnostic& d : diagnostics)
        all.append(py::make_tuple(d.severity == engine::Severity::Error ? "error" : "warning",
                                  d.where, d.message));
    error.attr("diagnostics") = all;
    PyErr_SetObject(sceneErrorType().ptr(), error.ptr());
    throw py::error_already_set();
}

std::vector<std::string> warningsOf(const engine::Diagnostics& diagnostics) {
    std::vector<std::string> out;
    for (const engine::Diagnostic& d : diagnostics)
        if (d.severity != engine::Severity::Error)
            out.push_back(d.where.empty() ? d.message : d.where + ": " + d.message);
    return out;
}

// A scene: its JSON text as read (what `to_json` gives back and `set` edits), where its meshes'
// paths start, and what the engine read from it.
struct Scene {
    std::string text;
    std::string baseDirectory;
    engine::SceneSpec spec;
    std::vector<std::string> warnings;

    static Scene fromResult(engine::io::SceneLoadResult r, const std::string& baseDirectory,
                            const std::string& context) {
        if (!r.scene) raiseSceneError(r.diagnostics, context);
        Scene s;
        s.spec = std::move(*r.scene);
        s.text = engine::io::sceneToJson(s.spec);
        s.baseDirectory = baseDirectory;
        s.warnings = warningsOf(r.diagnostics);
        return s;
    }
};

Scene loadScene(const std::string& path) {
    const std::string base = std::filesystem::path(path).parent_path().string();
    return Scene::fromResult(engine::io::loadSceneFile(path), base, path);
}

Scene sceneFromJson(const std::string& text, const std::string& baseDirectory) {
    return Scene::fromResult(engine::io::parseScene(text, baseDirectory), baseDirectory, "");
}

// `path` (as motus-cli --set names it: "/parts/crank/mass", "parts.crank.mass") set to the
// JSON text `value`, the scene read again: a new scene, or SceneError.
Scene setInScene(const Scene& scene, const std::string& path, const std::string& value) {
    return Scene::fromResult(
        engine::io::parseScene(scene.text, scene.baseDirectory, {{path, value}}),
        scene.baseDirectory, "set " + path);
}

// What a run gives Python: the columns' names and units, the rows (time first), and the
// recording to save as a run file.
struct RunResult {
    std::vector<std::string> names, units;
    std::vector<double> values;  // row after row
    std::size_t rows = 0;
    bool interrupted = false;
    std::string failure;  // why the run stopped before its end ("" if it did not)
    std::vector<std::string> warnings;
    std::string analysis = "simulate";  // kinematics, inverse, statics
    int redundantEquations = 0;         // inverse: reactions not unique (motus.info names them)
    std::string stability;              // statics: stable, unstable, neutral, unknown
    int unstableDirections = 0;         // statics: directions leading away from it
    double residual = 0.0;              // statics: the largest acceleration at rest
    engine::SceneSpec spec;
    std::shared_ptr<const engine::Model> model;
    std::unique_ptr<engine::Recording> recording;
    bool recordingWhole = true;  // the recording holds every frame

    py::array_t<double> table() const {
        const auto columns = static_cast<py::ssize_t>(names.size());
        py::array_t<double> out({static_cast<py::ssize_t>(rows), columns});
        if (!values.empty())
            std::memcpy(out.mutable_data(), values.data(), values.size() * sizeof(double));
        return out;
    }
};

// The recorded channels' units for the columns of the same names ("" where none: the
// orientation's quaternion, counts).
std::vector<std::string> unitsOf(const engine::Model& model,
                                 const std::vector<std::string>& names) {
    const engine::FrameLayout layout(model);
    std::vector<std::string> units;
    for (const std::string& name : names) {
        const int k = layout.findChannel(name);
        units.push_back(k >= 0 ? layout.channels()[static_cast<std::size_t>(k)].unit : "");
    }
    return units;
}

[[noreturn]] void raiseValueError(const std::string& message) {
    throw py::value_error(message);
}

engine::RunOptions runOptions(const py::dict& keywords, double& duration, int& every) {
    engine::RunOptions o;
    for (const auto& [key, value] : keywords) {
        const std::string name = py::str(key);
        if (value.is_none()) continue;
        auto number = [&](double& target) {
            try {
                target = value.cast<double>();
            } catch (const py::cast_error&) {
                raiseValueError(name + " must be a number of seconds or a tolerance, not " +
                                std::string(py::str(py::type::of(value).attr("__name__"))));
            }
            if (!std::isfinite(target) || target <= 0.0)
                raiseValueError(name + " must be a positive finite number, not " +
                                std::string(py::repr(value)));
        };
        if (name == "duration")
            number(duration);
        else if (name == "dt")
            number(o.dt);
        else if (name == "output_dt")
            number(o.outputDt);
        else if (name == "max_step")
            number(o.maxStep);
        else if (name == "rtol")
            number(o.rtol);
        else if (name == "atol")
            number(o.atol);
        else if (name == "projection_tolerance")
            number(o.projectionTolerance);
        else if (name == "integrator")
            o.integrator = value.cast<std::string>();
        else if (name == "formulation")
            o.formulation = value.cast<std::string>();
        else if (name == "every") {
            every = value.cast<int>();
            if (every < 1) raiseValueError("every must be 1 or more, not " + std::to_string(every));
        } else
            raiseValueError("simulate() has no option '" + name +
                            "' (duration, dt, output_dt, max_step, rtol, atol, "
                            "projection_tolerance, integrator, formulation, every)");
    }
    return o;
}

// Keyword names as Python writes them.
std::string pythonName(const std::string& option) {
    if (option == "outputDt") return "output_dt";
    if (option == "maxStep") return "max_step";
    return option;
}

// Forward dynamics as `motus-cli simulate` runs it: the same settings, the same runtime and
// frames, each frame's columns as its CSV row holds them.
std::unique_ptr<RunResult> simulate(const Scene& scene, const py::dict& keywords) {
    double duration = 0.0;
    int every = 1;
    const engine::RunOptions options = runOptions(keywords, duration, every);
    auto result = std::make_unique<RunResult>();
    result->spec = scene.spec;
    if (const auto problem = engine::applyRunOptions(options, result->spec.settings))
        raiseValueError(pythonName(problem->option) +
                        (problem->message.find(" s is below ") != std::string::npos ? "=" : ": ") +
                        problem->message);
    if (!(duration > 0.0)) duration = result->spec.settings.endTime;
    if (!(duration > 0.0))
        raiseValueError(
            "how long to simulate: give duration=, or an end time in the scene (settings.endTime)");
    const double rows = duration / result->spec.settings.outputSpacing() / every;
    if (rows > 1e8)
        raiseValueError(
            "a run of " + std::to_string(duration) +
            " s would give more than 100 million rows: use a larger output_dt or every");
    const engine::CompileResult compiled =
        engine::compile(result->spec, engine::Analysis::Simulation);
    if (!compiled.model) raiseSceneError(compiled.diagnostics, "");
    result->warnings = warningsOf(compiled.diagnostics);
    result->model = compiled.model;
    const engine::io::ResultColumns columns(*compiled.model);
    result->names = columns.names();
    result->units = unitsOf(*compiled.model, result->names);

    engine::RecordingOptions recording;
    recording.recordEvery = every;
    recording.policy = engine::MemoryPolicy::DropOldest;
    recording.maxBytes = std::size_t(256) << 20;
    std::string failure;
    {
        py::gil_scoped_release release;
        engine::Simulator sim(compiled.model, recording);
        if (!sim.initialization().ok) {
            failure = sim.initialization().message;
            sim.stop();
        } else {
            std::mutex rowsMutex;
            std::vector<double> row;
            sim.setFrameSink(
                [&](const engine::State& state, const engine::Outputs& outputs, std::string&) {
                    std::lock_guard lock(rowsMutex);
                    columns.values(state, outputs, row);
                    result->values.insert(result->values.end(), row.begin(), row.end());
                    ++result->rows;
                    return true;
                });
            sim.runTo(duration);
            while (!sim.waitUntilIdle(std::chrono::milliseconds(100))) {
                py::gil_scoped_acquire gil;
                if (PyErr_CheckSignals() != 0) {  // Ctrl+C: stop, keep what was computed
                    PyErr_Clear();
                    result->interrupted = true;
                    sim.pause();
                }
            }
            const auto snapshot = sim.snapshot();
            if (!snapshot->error.empty())
                result->failure = snapshot->error;
            else if (!result->interrupted && snapshot->time < duration - 1e-9)
                result->failure = snapshot->notice;
            sim.stop();
            result->recording = std::make_unique<engine::Recording>(*compiled.model, recording);
            // The recording the runtime kept, frame for frame, for saving as a run file.
            const engine::Recording& kept = sim.recording();
            result->recordingWhole = kept.first() == 0;
            engine::State state;
            engine::Outputs outputs;
            for (std::size_t k = kept.first(); k < kept.size(); ++k)
                if (kept.read(k, state, outputs)) result->recording->append(state, outputs, true);
        }
    }
    if (!failure.empty()) {
        engine::Diagnostics d{{engine::Severity::Error, "", failure}};
        raiseSceneError(d, "the run cannot start");
    }
    return result;
}

// A run file read back: its scene, and its frames' columns.
std::unique_ptr<RunResult> loadRun(const std::string& path) {
    std::string error;
    std::optional<engine::io::LoadedRun> run;
    {
        py::gil_scoped_release release;
        run = engine::io::loadRunFile(path, error);
    }
    if (!run) throw py::value_error(path + ": " + error);
    auto result = std::make_unique<RunResult>();
    result->spec = run->spec;
    result->model = run->model;
    const engine::io::ResultColumns columns(*run->model);
    result->names = columns.names();
    result->units = unitsOf(*run->model, result->names);
    engine::State state;
    engine::Outputs outputs;
    std::vector<double> row;
    for (std::size_t k = run->recording->first(); k < run->recording->size(); ++k) {
        if (!run->recording->read(k, state, outputs)) continue;
        columns.values(state, outputs, row);
        result->values.insert(result->values.end(), row.begin(), row.end());
        ++result->rows;
    }
    result->recording = std::move(run->recording);
    return result;
}

void saveRun(const RunResult& run, const std::string& path) {
    if (!run.recording || run.recording->size() == 0)
        throw py::value_error("the run has no frames to save");
    if (!run.recordingWhole)
        throw py::value_error(
            "the run's oldest frames were dropped to bound its memory (256 MiB): run it shorter, "
            "or with a larger output_dt or every, to save it whole");
    std::string error;
    bool saved = false;
    {
        py::gil_scoped_release release;
        saved = engine::io::saveRunFile(run.spec, *run.recording, path, error);
    }
    if (!saved) throw py::value_error(path + ": " + error);
}

// Runs `work` on a thread of its own, the GIL released, while this (Python's) thread watches for
// Ctrl+C: then `cancel` is set, the work stops where it can, and true is returned once it has.
// An exception the work throws is thrown here.
template <class Work>
bool runInterruptibly(Work&& work, std::atomic<bool>& cancel) {
    std::exception_ptr error;
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false, interrupted = false;
    {
        py::gil_scoped_release release;
        std::thread worker([&] {
            try {
                work();
            } catch (...) {
                error = std::current_exception();
            }
            std::lock_guard lock(mutex);
            done = true;
            finished.notify_all();
        });
        std::unique_lock lock(mutex);
        while (!finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return done; })) {
            lock.unlock();
            {
                py::gil_scoped_acquire gil;
                if (PyErr_CheckSignals() != 0) {
                    PyErr_Clear();
                    interrupted = true;
                    cancel = true;
                }
            }
            lock.lock();
        }
        lock.unlock();
        worker.join();
    }
    if (error) std::rethrow_exception(error);
    return interrupted;
}

// The step size and output interval of a kinematic analysis: dt, output_dt (the only options
// they take, with duration).
engine::RunOptions kinematicOptions(const py::dict& keywords, double& duration) {
    py::dict dynamic;
    for (const auto& [key, value] : keywords) {
        const std::string name = py::str(key);
        if (name != "duration" && name != "dt" && name != "output_dt" && !value.is_none())
            raiseValueError("kinematics() and inverse() have no option '" + name +
                            "' (duration, dt, output_dt)");
        dynamic[key] = value;
    }
    int every = 1;
    return runOptions(dynamic, duration, every);
}

// The kinematic analysis of a fully driven mechanism (positions, velocities, accelerations from
// the constraints alone) as `motus-cli kinematics` runs it; with `inverse` the reactions, motion
// efforts and power that produce it (`motus-cli inverse`). The columns of their CSV.
std::unique_ptr<RunResult> kinematic(const Scene& scene, const py::dict& keywords, bool inverse) {
    double duration = 0.0;
    const engine::RunOptions options = kinematicOptions(keywords, duration);
    auto result = std::make_unique<RunResult>();
    result->analysis = inverse ? "inverse" : "kinematics";
    result->spec = scene.spec;
    if (options.dt > 0.0) {
        engine::RunOptions stepOnly;
        stepOnly.dt = options.dt;
        if (const auto problem = engine::applyRunOptions(stepOnly, result->spec.settings))
            raiseValueError("dt=" + problem->message);
    }
    if (!(duration > 0.0)) duration = result->spec.settings.endTime;
    if (!(duration > 0.0))
        raiseValueError(
            "how long to analyse: give duration=, or an end time in the scene "
            "(settings.endTime)");
    engine::KinematicOptions analysis;
    analysis.duration = duration;
    analysis.outputInterval =
        options.outputDt > 0.0 ? options.outputDt : result->spec.settings.outputSpacing();
    if (analysis.outputInterval < engine::kMinStepSize)
        raiseValueError("output_dt=" + std::to_string(analysis.outputInterval) + " s is below " +
                        std::to_string(engine::kMinStepSize) + " s");
    if (duration / analysis.outputInterval > 1e8)
        raiseValueError("an analysis of " + std::to_string(duration) +
                        " s would give more than 100 million rows: use a larger output_dt");
    analysis.inverseDynamics = inverse;
    const engine::CompileResult compiled =
        engine::compile(result->spec, engine::Analysis::Kinematics);
    if (!compiled.model) raiseSceneError(compiled.diagnostics, "");
    result->warnings = warningsOf(compiled.diagnostics);
    result->model = compiled.model;
    const engine::io::ResultColumns columns(*compiled.model, /*kinematic=*/true);
    result->names = columns.names();
    result->units = unitsOf(*compiled.model, result->names);
    std::atomic<bool> cancel{false};
    analysis.cancel = &cancel;
    engine::KinematicResult outcome;
    result->interrupted = runInterruptibly(
        [&] {
            std::vector<double> row;
            outcome = engine::kinematicAnalysis(
                compiled.model, analysis, [&](const engine::KinematicFrame& frame, std::string&) {
                    columns.values(frame.state, frame.outputs, frame.vdot, frame.motionPower, row);
                    result->values.insert(result->values.end(), row.begin(), row.end());
                    ++result->rows;
                    return true;
                });
        },
        cancel);
    result->redundantEquations = outcome.redundantEquations;
    if (result->interrupted) return result;
    if (!outcome.status.ok) {
        if (outcome.frames == 0) {
            engine::Diagnostics d{{engine::Severity::Error, "", outcome.status.message}};
            raiseSceneError(d, "the analysis cannot start");
        }
        result->failure = outcome.status.message;
    }
    if (inverse && outcome.redundantEquations > 0)
        result->warnings.push_back(
            std::to_string(outcome.redundantEquations) +
            " redundant equations: the reactions of the joints they belong to are one of many "
            "that balance the mechanism (motus.info names them)");
    return result;
}

std::shared_ptr<const engine::Model> compiled(const Scene& scene, engine::Analysis analysis,
                                              std::vector<std::string>* warnings = nullptr) {
    const engine::CompileResult c = engine::compile(scene.spec, analysis);
    if (!c.model) raiseSceneError(c.diagnostics, "");
    if (warnings) *warnings = warningsOf(c.diagnostics);
    return c.model;
}

// The equilibrium nearest the scene's pose (`motus-cli statics`): one row of `simulate`'s
// columns (the reactions and efforts that hold it), its stability.
std::unique_ptr<RunResult> statics(const Scene& scene) {
    auto result = std::make_unique<RunResult>();
    result->analysis = "statics";
    result->spec = scene.spec;
    result->model = compiled(scene, engine::Analysis::Statics, &result->warnings);
    const engine::Model& model = *result->model;
    const engine::io::ResultColumns columns(model);
    result->names = columns.names();
    result->units = unitsOf(model, result->names);
    std::atomic<bool> cancel{false};
    engine::StaticResult r;
    engine::Status outputsStatus;
    result->interrupted = runInterruptibly(
        [&] {
            r = engine::equilibrium(model, engine::initialState(model), 1e-8, &cancel);
            if (!r.status.ok) return;
            engine::Workspace ws;
            engine::Outputs outputs;
            std::vector<double> row;
            if ((outputsStatus = engine::prepareWorkspace(model, r.state, ws)).ok &&
                (outputsStatus = engine::computeOutputs(model, r.state, ws, outputs)).ok) {
                columns.values(r.state, outputs, row);
                result->values = row;
                result->rows = 1;
            }
        },
        cancel);
    if (result->interrupted) return result;
    if (!r.status.ok) {
        engine::Diagnostics d{{engine::Severity::Error, "", r.status.message}};
        raiseSceneError(d, "no static equilibrium");
    }
    if (!outputsStatus.ok) raiseValueError(outputsStatus.message);
    result->stability = engine::stabilityName(r.stability);
    result->unstableDirections = r.unstableDirections;
    result->residual = r.residual;
    return result;
}

// Small vibrations (`motus-cli modes`): about the scene's pose, the equilibrium nearest it, or
// the pose a run reaches at a time.
struct ModesRun {
    std::vector<std::string> parts;  // the parts the shapes are given for
    std::vector<double> frequency, dampingRatio, growthRate;
    std::vector<bool> unstable;
    Eigen::MatrixXd shapes;  // a row per mode: 6 per part (x, y, z [m], rx, ry, rz [rad])
    Eigen::MatrixXd N, K, C;
    Eigen::VectorXd force;
    std::vector<std::string> velocityCoordinates;  // N's rows: the bodies' velocity coordinates
    double residual = 0.0, time = 0.0;
    bool interrupted = false;
    std::vector<std::string> warnings;
};

py::array_t<double> toArray(const Eigen::MatrixXd& m) {
    py::array_t<double> out(
        {static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(m.cols())});
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) out.mutable_at(i, j) = m(i, j);
    return out;
}

std::unique_ptr<ModesRun> modesOf(const Scene& scene, bool atEquilibrium, double at) {
    auto result = std::make_unique<ModesRun>();
    const auto model = compiled(scene, engine::Analysis::Modes, &result->warnings);
    std::atomic<bool> cancel{false};
    engine::StaticResult pose;
    engine::Status runStatus;
    engine::ModesResult r;
    result->interrupted = runInterruptibly(
        [&] {
            if (at >= 0.0) {
                engine::ForwardDynamics run(model);
                if (!(runStatus = run.initialize()).ok) return;
                const double interval = model->settings.outputSpacing();
                while (run.state().t < at - 1e-12 * std::max(1.0, at)) {
                    if (cancel) return;
                    if (!(runStatus = run.advance(std::min(at, run.state().t + interval))).ok)
                        return;
                }
                pose.state = run.state();
            } else {
                pose = atEquilibrium ? engine::equilibrium(*model, engine::initialState(*model),
                                                           1e-8, &cancel, nullptr, true)
                                     : engine::assemble(*model, engine::initialState(*model));
                if (!pose.status.ok) return;
            }
            pose.state.v.setZero();
            r = engine::modes(*model, pose.state);
        },
        cancel);
    if (result->interrupted) return result;
    for (const engine::Status* s : {&runStatus, &pose.status, &r.status})
        if (!s->ok) {
            engine::Diagnostics d{{engine::Severity::Error, "", s->message}};
            raiseSceneError(d, "no modes");
        }
    if (r.residual > 1e-6)
        result->warnings.push_back(
            "the pose is not an equilibrium (largest acceleration at rest " +
            std::to_string(r.residual) +
            "): the modes are those of the mechanism frozen in it; use equilibrium=True for "
            "vibrations about where it rests");
    for (const std::size_t p : engine::modeShapeParts(*model))
        result->parts.push_back(model->parts[p].name);
    result->shapes.resize(static_cast<Eigen::Index>(r.modes.size()),
                          static_cast<Eigen::Index>(6 * result->parts.size()));
    std::vector<double> shape;
    for (std::size_t k = 0; k < r.modes.size(); ++k) {
        const engine::Mode& m = r.modes[k];
        result->frequency.push_back(m.frequency);
        result->dampingRatio.push_back(m.dampingRatio);
        result->growthRate.push_back(m.growthRate);
        result->unstable.push_back(m.unstable);
        engine::modeShapeByPart(*model, pose.state.q, m, shape);
        for (std::size_t c = 0; c < shape.size(); ++c)
            result->shapes(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c)) = shape[c];
    }
    for (const engine::BodyModel& body : model->bodies)
        for (const char* c : {"vx", "vy", "vz", "wx'", "wy'", "wz'"})
            result->velocityCoordinates.push_back(body.name + "." + c);
    result->N = r.N;
    result->K = r.K;
    result->C = r.C;
    result->force = r.force;
    result->residual = r.residual;
    result->time = pose.state.t;
    return result;
}

// The scene with its parts where every joint and motion holds, nearest to where they were
// placed (`motus-cli assemble`), and how far they moved [m] and turned [rad].
py::tuple assembleOf(const Scene& scene) {
    engine::SceneSpec spec = scene.spec;
    std::atomic<bool> cancel{false};
    engine::SceneAssembly assembled;
    if (runInterruptibly([&] { assembled = engine::assembleScene(spec); }, cancel)) {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
        throw py::error_already_set();
    }
    if (!assembled.model) raiseSceneError(assembled.diagnostics, "");
    if (!assembled.result.status.ok) {
        engine::Diagnostics d{{engine::Severity::Error, "", assembled.result.status.message}};
        raiseSceneError(d, "cannot assemble");
    }
    Scene out = Scene::fromResult(
        engine::io::parseScene(engine::io::sceneToJson(spec), scene.baseDirectory),
        scene.baseDirectory, "the assembled scene");
    return py::make_tuple(std::move(out), assembled.moved, assembled.turned);
}

// `motus-cli info`'s document (engine/io/mechanism_info.h), as JSON text.
std::string infoOf(const Scene& scene) {
    const engine::CompileResult c = engine::compile(scene.spec);
    if (!c.model) raiseSceneError(c.diagnostics, "");
    engine::io::MechanismInfo info;
    {
        py::gil_scoped_release release;
        info = engine::io::mechanismInfo(c.model, &scene.spec, c.diagnostics, "");
    }
    return info.json;
}

// A state of a Simulator, kept to go back to (Simulator.snapshot/restore).
struct Snapshot {
    engine::State state;
    std::uint64_t owner = 0;  // the compiled scene it belongs to
};

// Stepping forward dynamics from Python (control loops, learning): one step of the scene's
// step size at a time, on the calling thread (the GIL released while it computes). Held
// variables (a scene variable with an "initial" value) are its inputs: set between steps, read
// by forces' expressions. One call at a time: a second thread calling in while it steps is
// refused, not raced.
class Stepper {
public:
    explicit Stepper(const Scene& scene) : spec_(scene.spec) {
        const engine::CompileResult compiled = engine::compile(spec_, engine::Analysis::Simulation);
        if (!compiled.model) raiseSceneError(compiled.diagnostics, "");
        model_ = compiled.model;
        static std::atomic<std::uint64_t> serial{0};
        serial_ = ++serial;
        columns_ = std::make_unique<engine::io::ResultColumns>(*model_);
        reset();
    }
    void reset() {
        const Busy busy(*this);
        auto sim = std::make_unique<engine::ForwardDynamics>(model_);
        engine::Status s;
        {
            py::gil_scoped_release release;
            s = sim->initialize();
        }
        if (!s.ok) throw py::value_error("the run cannot start: " + s.message);
        sim_ = std::move(sim);
        steps_ = 0;
    }
    // n steps of the scene's step size (dopri45: n output intervals). Ctrl+C stops between two
    // steps (the state is the last step's) with KeyboardInterrupt.
    void step(long n) {
        if (n < 0) throw py::value_error("step(n) takes n ≥ 0, not " + std::to_string(n));
        const Busy busy(*this);
        const double h = spec_.settings.outputSpacing();
        engine::Status s;
        bool interrupted = false;
        {
            py::gil_scoped_release release;
            auto checked = std::chrono::steady_clock::now();
            for (long k = 0; k < n && s.ok; ++k) {
                s = sim_->advance(static_cast<double>(steps_ + 1) * h);
                if (s.ok) ++steps_;
                if ((k & 63) == 63 && k + 1 < n &&
                    std::chrono::steady_clock::now() - checked > std::chrono::milliseconds(100)) {
                    checked = std::chrono::steady_clock::now();
                    py::gil_scoped_acquire gil;
                    if (PyErr_CheckSignals() != 0) {
                        PyErr_Clear();
                        interrupted = true;
                        break;
                    }
                }
            }
        }
        if (interrupted) {
            PyErr_SetString(PyExc_KeyboardInterrupt,
                            ("stepping interrupted at t = " + std::to_string(sim_->state().t) +
                             " s (the simulator is at that state)")
                                .c_str());
            throw py::error_already_set();
        }
        if (!s.ok)
            throw py::value_error("the run stopped at t = " + std::to_string(sim_->state().t) +
                                  " s: " + s.message);
    }
    // The inputs: the scene's held variables, by name, with their values now.
    py::dict inputs() const {
        py::dict d;
        const std::vector<double>& now = sim_->state().switches;
        for (std::size_t k = 0; k < model_->switches.size(); ++k)
            if (model_->switches[k].kind == engine::SwitchKind::Held)
                d[py::str(model_->switches[k].name)] =
                    k < now.size() ? now[k] : model_->switches[k].initial;
        return d;
    }
    // Every sleeping part wakes (the scene's contact sleepTime); how many slept.
    int wake() {
        const Busy busy(*this);
        const std::vector<double>& rest = sim_->state().rest;
        const auto asleep =
            std::count_if(rest.begin(), rest.end(), [](double r) { return r < 0.0; });
        sim_->wake();
        return static_cast<int>(asleep);
    }
    // How many parts sleep now.
    int asleep() const {
        const std::vector<double>& rest = sim_->state().rest;
        return static_cast<int>(
            std::count_if(rest.begin(), rest.end(), [](double r) { return r < 0.0; }));
    }
    void setInput(const std::string& name, double value) {
        const Busy busy(*this);
        int slot = -1;
        std::string held;
        for (std::size_t k = 0; k < model_->switches.size(); ++k) {
            if (model_->switches[k].kind != engine::SwitchKind::Held) continue;
            if (model_->switches[k].name == name) slot = static_cast<int>(k);
            held += (held.empty() ? "" : ", ") + model_->switches[k].name;
        }
        if (slot < 0)
            throw py::key_error(
                "no input '" + name + "': the inputs are the scene's held variables (" +
                (held.empty() ? std::string("it has none") : held) +
                "); declare one as {\"name\": \"" + name +
                "\", \"initial\": 0} under \"variables\" and read it in a force's expression");
        if (!std::isfinite(value))
            throw py::value_error("set_input('" + name + "', " + std::to_string(value) +
                                  "): an input is a finite number");
        if (const engine::Status s = sim_->setHeld(slot, value); !s.ok)
            throw py::value_error(s.message);
    }
    double time() const { return sim_->state().t; }
    // The bodies' positions and velocities, as read-only views of the simulator's own state (no
    // copy: they follow it as it steps).
    py::array_t<double> q(py::object self) const { return view(sim_->state().q, self); }
    py::array_t<double> v(py::object self) const { return view(sim_->state().v, self); }
    Snapshot snapshot() const { return {sim_->state(), serial_}; }
    void restore(const Snapshot& snap) {
        if (snap.owner != serial_)
            throw py::value_error("the snapshot is of another simulator's scene");
        const Busy busy(*this);
        sim_->restore(snap.state);
        steps_ = std::lround(snap.state.t / spec_.settings.outputSpacing());
    }
    // The frame of a run of the same scene at (or just before) `t`, to go on from, exactly.
    void restoreFrame(const RunResult& run, double t) {
        if (!run.recording || run.recording->size() == 0)
            throw py::value_error("the run has no recorded frames");
        if (engine::io::sceneToJson(run.spec) != engine::io::sceneToJson(spec_))
            throw py::value_error(
                "the run is of another scene (or other settings) than this simulator's");
        engine::State state;
        engine::Outputs outputs;
        const std::size_t frame = run.recording->frameAtOrBefore(t + 1e-12);
        if (frame < run.recording->first() || run.recording->time(frame) > t + 1e-12 ||
            !run.recording->read(frame, state, outputs))
            throw py::value_error("the run has no frame at or before t = " + std::to_string(t) +
                                  " s");
        const Busy busy(*this);
        sim_->restore(state);
        steps_ = std::lround(state.t / spec_.settings.outputSpacing());
    }
    // The columns of `motus-cli simulate` at the current state, by name.
    py::dict outputs() {
        const Busy busy(*this);
        engine::Outputs out;
        engine::Status s;
        std::vector<double> row;
        {
            py::gil_scoped_release release;
            s = sim_->outputs(out);
            if (s.ok) columns_->values(sim_->state(), out, row);
        }
        if (!s.ok) throw py::value_error(s.message);
        py::dict d;
        for (std::size_t k = 0; k < row.size(); ++k) d[py::str(columns_->names()[k])] = row[k];
        return d;
    }
    std::vector<std::string> names() const { return columns_->names(); }
    std::vector<std::string> bodies() const {
        std::vector<std::string> out;
        for (const engine::BodyModel& b : model_->bodies) out.push_back(b.name);
        return out;
    }

private:
    // Marks the simulator in use for a call; a second call meanwhile (another thread, with the
    // GIL released by the first) is refused.
    struct Busy {
        explicit Busy(Stepper& s) : stepper(s) {
            if (stepper.busy_.exchange(true))
                throw std::runtime_error(
                    "the simulator is in use by another thread (one call at a time: step, "
                    "reset, set_input, restore, outputs)");
        }
        ~Busy() { stepper.busy_ = false; }
        Stepper& stepper;
    };
    static py::array_t<double> view(const Eigen::VectorXd& x, py::object owner) {
        py::array_t<double> out({static_cast<py::ssize_t>(x.size())},
                                {static_cast<py::ssize_t>(sizeof(double))}, x.data(), owner);
        py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
        return out;
    }
    engine::SceneSpec spec_;
    std::shared_ptr<const engine::Model> model_;
    std::unique_ptr<engine::io::ResultColumns> columns_;
    std::unique_ptr<engine::ForwardDynamics> sim_;
    long steps_ = 0;
    std::uint64_t serial_ = 0;
    std::atomic<bool> busy_{false};
};

}  // namespace

PYBIND11_MODULE(_motus, m) {
    m.doc() = "Motus's engine (the package `motus` wraps it: use that)";
    m.attr("__version__") = std::string(engine::versionString());
    sceneErrorType() = py::reinterpret_borrow<py::object>(
        PyErr_NewException("motus.SceneError", PyExc_ValueError, nullptr));
    m.attr("SceneError") = sceneErrorType();

    py::class_<Scene>(m, "Scene")
        .def_readonly("text", &Scene::text)
        .def_readonly("base_directory", &Scene::baseDirectory)
        .def_readonly("warnings", &Scene::warnings)
        .def_property_readonly("name", [](const Scene& s) { return s.spec.name; });
    m.def("load", &loadScene, py::arg("path"));
    // The engine's threads (the contact solve's islands run on them): all cores by default.
    m.def("threads", &engine::workerThreads);
    m.def("set_threads", &engine::setWorkerThreads, py::arg("threads"));
    m.def("scene_from_json", &sceneFromJson, py::arg("text"), py::arg("base_directory") = "");
    m.def(
        "save_scene",
        [](const Scene& s, const std::string& path) {
            std::string error;
            if (!engine::io::saveSceneFile(s.spec, path, error))
                throw py::value_error(path + ": " + error);
        },
        py::arg("scene"), py::arg("path"));
    m.def("set_in_scene", &setInScene, py::arg("scene"), py::arg("path"), py::arg("value"));

    py::class_<RunResult>(m, "RunResult")
        .def_readonly("names", &RunResult::names)
        .def_readonly("units", &RunResult::units)
        .def_readonly("interrupted", &RunResult::interrupted)
        .def_readonly("failure", &RunResult::failure)
        .def_readonly("warnings", &RunResult::warnings)
        .def_readonly("analysis", &RunResult::analysis)
        .def_readonly("redundant_equations", &RunResult::redundantEquations)
        .def_readonly("stability", &RunResult::stability)
        .def_readonly("unstable_directions", &RunResult::unstableDirections)
        .def_readonly("residual", &RunResult::residual)
        .def("table", &RunResult::table)
        .def("scene_json", [](const RunResult& r) { return engine::io::sceneToJson(r.spec); })
        .def("save", &saveRun, py::arg("path"));
    m.def("simulate", &simulate, py::arg("scene"), py::arg("options"));
    m.def("load_run", &loadRun, py::arg("path"));
    m.def(
        "kinematics",
        [](const Scene& scene, const py::dict& options) {
            return kinematic(scene, options, false);
        },
        py::arg("scene"), py::arg("options"));
    m.def(
        "inverse",
        [](const Scene& scene, const py::dict& options) { return kinematic(scene, options, true); },
        py::arg("scene"), py::arg("options"));
    m.def("statics", &statics, py::arg("scene"));
    m.def("assemble", &assembleOf, py::arg("scene"));
    m.def("info", &infoOf, py::arg("scene"));

    py::class_<ModesRun>(m, "ModesRun")
        .def_readonly("parts", &ModesRun::parts)
        .def_readonly("frequency", &ModesRun::frequency)
        .def_readonly("damping_ratio", &ModesRun::dampingRatio)
        .def_readonly("growth_rate", &ModesRun::growthRate)
        .def_readonly("unstable", &ModesRun::unstable)
        .def_readonly("velocity_coordinates", &ModesRun::velocityCoordinates)
        .def_readonly("residual", &ModesRun::residual)
        .def_readonly("time", &ModesRun::time)
        .def_readonly("interrupted", &ModesRun::interrupted)
        .def_readonly("warnings", &ModesRun::warnings)
        .def("shapes", [](const ModesRun& r) { return toArray(r.shapes); })
        .def("N", [](const ModesRun& r) { return toArray(r.N); })
        .def("K", [](const ModesRun& r) { return toArray(r.K); })
        .def("C", [](const ModesRun& r) { return toArray(r.C); })
        .def("f", [](const ModesRun& r) { return toArray(r.force); });
    m.def("modes", &modesOf, py::arg("scene"), py::arg("equilibrium"), py::arg("at"));

    py::class_<Snapshot>(m, "Snapshot").def_property_readonly("time", [](const Snapshot& s) {
        return s.state.t;
    });
    py::class_<Stepper>(m, "Stepper")
        .def(py::init<const Scene&>(), py::arg("scene"))
        .def("reset", &Stepper::reset)
        .def("step", &Stepper::step, py::arg("n") = 1)
        .def("set_input", &Stepper::setInput, py::arg("name"), py::arg("value"))
        .def("wake", &Stepper::wake)
        .def_property_readonly("asleep", &Stepper::asleep)
        .def_property_readonly("inputs", &Stepper::inputs)
        .def("snapshot", &Stepper::snapshot)
        .def("restore", &Stepper::restore, py::arg("snapshot"))
        .def("restore_frame", &Stepper::restoreFrame, py::arg("run"), py::arg("time"))
        .def_property_readonly("time", &Stepper::time)
        .def_property_readonly("q",
                               [](py::object self) { return self.cast<const Stepper&>().q(self); })
        .def_property_readonly("v",
                               [](py::object self) { return self.cast<const Stepper&>().v(self); })
        .def_property_readonly("names", &Stepper::names)
        .def_property_readonly("bodies", &Stepper::bodies)
        .def("outputs", &Stepper::outputs);
}
