#pragma once
// Helpers for tests that compile scenes and compare recorded runs.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/analysis/forward_dynamics.h"
#include "engine/analysis/outputs.h"
#include "engine/io/scene_json.h"
#include "engine/model/model.h"
#include "engine/record/recording.h"
#include "tests/support/worker_threads.h"

namespace engine::test {

// Compiles `spec`; every diagnostic is a test failure.
inline std::shared_ptr<const Model> compiled(const SceneSpec& spec) {
    CompileResult c = compile(spec);
    for (const Diagnostic& d : c.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    return c.model;
}

// The example scene scenes/`name`, compiled; a scene that does not load or compile is a test
// failure (and null).
inline std::shared_ptr<const Model> exampleModel(const std::string& name) {
    const io::SceneLoadResult r =
        io::loadSceneFile(std::string(MOTUS_SOURCE_DIR) + "/scenes/" + name);
    EXPECT_TRUE(r.scene) << name;
    return r.scene ? compiled(*r.scene) : nullptr;
}

// A forward-dynamics run of `spec` from its start, advanced by to(t); an engine error is a
// test failure.
struct Stepping {
    explicit Stepping(const SceneSpec& spec) : fd(compiled(spec)) {
        const Status s = fd.initialize();
        EXPECT_TRUE(s.ok) << s.message;
    }
    // Advances to time t, failing the test on an engine error.
    bool to(double t) {
        const Status s = fd.advance(t);
        EXPECT_TRUE(s.ok) << s.message;
        return s.ok;
    }
    Outputs outputs() {
        Outputs out;
        const Status s = fd.outputs(out);
        EXPECT_TRUE(s.ok) << s.message;
        return out;
    }
    ForwardDynamics fd;
};

// `spec` run to time t on one engine thread and on two (the count put back after): the two last
// states, and the contact points at the end (the fewer of the two runs'), for tests that the runs
// are the same bit for bit.
struct OnOneThreadAndTwo {
    State one, two;
    std::size_t contacts = 0;
};
inline OnOneThreadAndTwo runOnOneThreadAndTwo(const SceneSpec& spec, double t) {
    OnOneThreadAndTwo runs;
    for (const int n : {1, 2}) {
        const WorkerThreads threads(n);
        Stepping run(spec);
        if (!run.to(t)) return runs;
        const std::size_t contacts = run.outputs().contacts.size();
        runs.contacts = n == 1 ? contacts : std::min(runs.contacts, contacts);
        (n == 1 ? runs.one : runs.two) = run.fd.state();
    }
    return runs;
}

// A run of `seconds` from the scene's start, no drive needed: what the energy-conservation
// tests compare. `ran` is false (and `failure` says why) when it could not start or stopped.
struct FreeRun {
    bool ran = false;
    std::string failure;
    double balanceBefore = 0.0;  // energy balance at the start and at the end [J]
    double balanceAfter = 0.0;
    double kinetic = 0.0;  // at the end [J]
    double constraintError = 0.0;
};

inline FreeRun runFree(const SceneSpec& spec, double seconds) {
    FreeRun run;
    const auto model = compiled(spec);
    if (!model) {
        run.failure = "the scene does not compile";
        return run;
    }
    ForwardDynamics sim(model);
    Outputs out;
    for (const Status& s : {sim.initialize(), sim.outputs(out)})
        if (!s.ok) {
            run.failure = s.message;
            return run;
        }
    run.balanceBefore = out.energies.balance();
    const Status advanced = sim.advance(seconds);
    const Status read = advanced.ok ? sim.outputs(out) : advanced;
    if (!read.ok) {
        run.failure = read.message;
        return run;
    }
    run.ran = true;
    run.balanceAfter = out.energies.balance();
    run.kinetic = out.energies.kinetic;
    run.constraintError = out.constraintError;
    return run;
}

// Every frame of a recording from `first` on, as raw rows (for bitwise comparison).
inline std::vector<std::vector<double>> recordedRows(const Recording& recording,
                                                     std::size_t first = 0) {
    std::vector<std::vector<double>> out;
    for (std::size_t k = first; k < recording.size(); ++k) {
        State s;
        Outputs o;
        recording.read(k, s, o);
        std::vector<double> row(static_cast<std::size_t>(recording.layout().size()));
        recording.layout().encode(s, o, row.data());
        out.push_back(std::move(row));
    }
    return out;
}

}  // namespace engine::test
