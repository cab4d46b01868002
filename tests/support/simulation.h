#pragma once
// Helpers for tests that compile scenes and compare recorded runs.

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "engine/model/model.h"
#include "engine/record/recording.h"

namespace engine::test {

// Compiles `spec`; every diagnostic is a test failure.
inline std::shared_ptr<const Model> compiled(const SceneSpec& spec) {
    CompileResult c = compile(spec);
    for (const Diagnostic& d : c.diagnostics) ADD_FAILURE() << d.where << ": " << d.message;
    return c.model;
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
