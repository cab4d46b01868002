#pragma once
// Simulation results as CSV, the column contract of `motus-cli simulate`:
//
//   time,
//   per moving part P:  P.x,P.y,P.z (COM position), P.qw,P.qx,P.qy,P.qz (orientation of the
//                       part frame), P.vx,P.vy,P.vz (COM velocity), P.wx,P.wy,P.wz (angular
//                       velocity), all in world axes
//   per joint J:        J.q0… (its coordinates: angle [rad] and/or slide [m]), then
//                       J.Fx,J.Fy,J.Fz,J.Tx,J.Ty,J.Tz (reaction on part I at marker I, world)
//   energy.kinetic,energy.potential,energy.total,constraint.error
//
// Numbers are written in the shortest form that reads back to the same double.

#include <ostream>
#include <string>

#include "engine/analysis/outputs.h"

namespace engine::io {

// Shortest round-trip text of a double ("0.1", "1e-12", "nan").
std::string formatDouble(double value);

class CsvWriter {
public:
    CsvWriter(const Model& model, std::ostream& out);
    void writeHeader();
    void writeRow(const State& state, const Outputs& outputs);

private:
    const Model& model_;
    std::ostream& out_;
};

}  // namespace engine::io
