// The engine for Python: `motus._motus`, wrapped by the package `motus` (app/python/motus/,
// docs/python.md). Scenes as the engine reads them (every check on a file applies to a dict),
// runs through the same runtime and the same columns as `motus-cli simulate` (the same doubles
// as its CSV), a stepping simulator for control loops. The GIL is released while the engine
// computes; Ctrl+C stops a run and keeps what was computed; no engine error reaches Python as
// anything but an exception.

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/io/csv_export.h"
#include "engine/io/run_file.h"
#include "engine/io/scene_json.h"
#include "engine/io/scene_overrides.h"
#include "engine/model/model.h"
#include "engine/model/run_options.h"
#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
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

// Stepping forward dynamics from Python (control loops, learning): one step of the scene's
// step size at a time, on the calling thread (the GIL released while it computes).
class Stepper {
public:
    explicit Stepper(const Scene& scene) : spec_(scene.spec) {
        const engine::CompileResult compiled = engine::compile(spec_, engine::Analysis::Simulation);
        if (!compiled.model) raiseSceneError(compiled.diagnostics, "");
        model_ = compiled.model;
        columns_ = std::make_unique<engine::io::ResultColumns>(*model_);
        reset();
    }
    void reset() {
        sim_ = std::make_unique<engine::ForwardDynamics>(model_);
        engine::Status s;
        {
            py::gil_scoped_release release;
            s = sim_->initialize();
        }
        if (!s.ok) throw py::value_error("the run cannot start: " + s.message);
        steps_ = 0;
    }
    // n steps of the scene's step size (dopri45: n output intervals).
    void step(long n) {
        if (n < 0) throw py::value_error("step(n) takes n ≥ 0, not " + std::to_string(n));
        const double h = spec_.settings.outputSpacing();
        engine::Status s;
        {
            py::gil_scoped_release release;
            for (long k = 0; k < n && s.ok; ++k) {
                s = sim_->advance(static_cast<double>(steps_ + 1) * h);
                if (s.ok) ++steps_;
            }
        }
        if (!s.ok)
            throw py::value_error("the run stopped at t = " + std::to_string(sim_->state().t) +
                                  " s: " + s.message);
    }
    double time() const { return sim_->state().t; }
    py::array_t<double> q() const { return copy(sim_->state().q); }
    py::array_t<double> v() const { return copy(sim_->state().v); }
    // The columns of `motus-cli simulate` at the current state, by name.
    py::dict outputs() {
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

private:
    static py::array_t<double> copy(const Eigen::VectorXd& x) {
        py::array_t<double> out(x.size());
        if (x.size() > 0)
            std::memcpy(out.mutable_data(), x.data(), static_cast<std::size_t>(x.size()) * 8);
        return out;
    }
    engine::SceneSpec spec_;
    std::shared_ptr<const engine::Model> model_;
    std::unique_ptr<engine::io::ResultColumns> columns_;
    std::unique_ptr<engine::ForwardDynamics> sim_;
    long steps_ = 0;
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
        .def("table", &RunResult::table)
        .def("scene_json", [](const RunResult& r) { return engine::io::sceneToJson(r.spec); })
        .def("save", &saveRun, py::arg("path"));
    m.def("simulate", &simulate, py::arg("scene"), py::arg("options"));
    m.def("load_run", &loadRun, py::arg("path"));

    py::class_<Stepper>(m, "Stepper")
        .def(py::init<const Scene&>(), py::arg("scene"))
        .def("reset", &Stepper::reset)
        .def("step", &Stepper::step, py::arg("n") = 1)
        .def_property_readonly("time", &Stepper::time)
        .def_property_readonly("q", &Stepper::q)
        .def_property_readonly("v", &Stepper::v)
        .def_property_readonly("names", &Stepper::names)
        .def("outputs", &Stepper::outputs);
}
