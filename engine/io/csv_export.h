#pragma once
// Simulation results as CSV, the column contract of `motus-cli simulate`:
//
//   time,
//   per part P off the ground (welded parts each, one welded to the ground standing still):
//                       P.x,P.y,P.z (COM position), P.qw,P.qx,P.qy,P.qz (orientation of the
//                       part frame), P.vx,P.vy,P.vz (COM velocity), P.wx,P.wy,P.wz (angular
//                       velocity), all in world axes
//   per joint J:        J.q0… (its coordinates: angle [rad] and/or slide [m]), then
//                       J.Fx,J.Fy,J.Fz,J.Tx,J.Ty,J.Tz (reaction on part I at marker I, world),
//                       then J.limit (J.q0limit, J.q1limit… on a joint of several coordinates)
//                       per limited coordinate: its stops' force [N] or torque [N·m],
//                       then J.friction (J.q0friction…) per coordinate with friction
//   per coupler C:      C.force,C.effortI,C.effortJ
//   per servo or joint force S: S.effort
//   per spring, cable (S): S.force,S.length,S.lengthRate; per torsion spring: S.torque,S.angle,
//                       S.angleRate
//   energy.kinetic,energy.potential,energy.total,energy.driverWork,energy.dissipated (the
//                       balance: total − driverWork + dissipated is conserved),
//                       constraint.error
//   per moving frame F and other moving part P: P.F.x,P.F.y,P.F.z,P.F.vx…,P.F.wx… (P seen in
//                       F, in F's axes: engine/kinematics/part_motion.h)
//   with contact: contact.count,contact.normalForce,contact.maxDepth
//   per held variable V or switched force or motion E: V.value, E.on
//   per motion M:       M.effort (the force [N] or torque [N·m] its actuator gives), M.power [W]
//
// The kinematic analyses (`motus-cli kinematics|inverse`) write the motions' effort and power
// after these instead, with:
//   per part P as above: P.ax,P.ay,P.az (COM acceleration), P.alphax,P.alphay,P.alphaz (angular
//                       acceleration), world axes
// A value an analysis does not compute (reactions and efforts of a kinematic analysis, which
// involves no masses or forces) is written "nan".
//
// The names are the recording's (engine/record/channel_names.h): a column and a recorded
// channel of the same name are the same quantity. Numbers are written in the shortest form that
// reads back to the same double.

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "engine/analysis/outputs.h"

namespace engine::io {

// Shortest round-trip text of a double ("0.1", "1e-12", "nan").
std::string formatDouble(double value);

// The columns in that order: their names, and each row's values (what CsvWriter writes, and
// what the Python module hands over as arrays, the same doubles).
class ResultColumns {
public:
    // `kinematic`: with the kinematic analyses' columns.
    ResultColumns(const Model& model, bool kinematic = false);
    const std::vector<std::string>& names() const { return names_; }
    // A row (names().size() values) of a dynamic run.
    void values(const State& state, const Outputs& outputs, std::vector<double>& row) const;
    // A row with the kinematic columns: accelerations v̇ (v̇_W, ω̇' per body) and the motions'
    // power.
    void values(const State& state, const Outputs& outputs, const Eigen::VectorXd& vdot,
                const std::vector<double>& motionPower, std::vector<double>& row) const;

private:
    void writeColumns(const State& state, const Outputs& outputs, std::vector<double>& row) const;

    const Model& model_;
    bool kinematic_ = false;
    std::vector<std::string> names_;
};

class CsvWriter {
public:
    CsvWriter(const Model& model, std::ostream& out);
    // The kinematic analyses' columns too (call before writeHeader).
    void addKinematicColumns() { kinematic_ = true; }
    void writeHeader();
    void writeRow(const State& state, const Outputs& outputs);
    void writeRow(const State& state, const Outputs& outputs, const Eigen::VectorXd& vdot,
                  const std::vector<double>& motionPower);

private:
    void writeValues();

    const Model& model_;
    std::ostream& out_;
    bool kinematic_ = false;
    std::unique_ptr<ResultColumns> columns_;
    std::vector<double> row_;
};

}  // namespace engine::io
