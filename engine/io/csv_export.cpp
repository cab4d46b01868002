#include "engine/io/csv_export.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/part_motion.h"
#include "engine/model/layout.h"
#include "engine/record/channel_names.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace engine::io {

std::string formatDouble(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

ResultColumns::ResultColumns(const Model& model, bool kinematic)
    : model_(model), kinematic_(kinematic) {
    namespace ch = channels;
    auto column = [&](const std::string& name) { names_.push_back(name); };
    column(ch::kTime);
    for (std::size_t p = 0; p < model_.parts.size(); ++p) {
        if (isGroundPart(model_, p)) continue;
        const PartModel& part = model_.parts[p];
        for (const char* c : ch::kPosition) column(ch::of(part.name, c));
        for (const char* c : ch::kOrientation) column(ch::of(part.name, c));
        for (const char* c : ch::kVelocity) column(ch::of(part.name, c));
        for (const char* c : ch::kAngularVelocity) column(ch::of(part.name, c));
    }
    for (const JointModel& joint : model_.joints) {
        for (std::size_t k = 0; k < joint.coordinates.size(); ++k)
            column(ch::of(joint.name, ch::coordinate(k)));
        for (const char* c : ch::kReaction) column(ch::of(joint.name, c));
        // Its stops' force, per limited coordinate (Model::limits is in joint order).
        for (const LimitModel& limit : model_.limits)
            if (&model_.joints[static_cast<std::size_t>(limit.joint)] == &joint)
                column(ch::of(joint.name, ch::limit(static_cast<std::size_t>(limit.coordinate),
                                                    joint.coordinates.size())));
        for (const JointFrictionModel& f : model_.frictions)
            if (&model_.joints[static_cast<std::size_t>(f.joint)] == &joint)
                column(ch::of(joint.name, ch::friction(static_cast<std::size_t>(f.coordinate),
                                                       joint.coordinates.size())));
    }
    for (const CouplerModel& c : model_.couplers) {
        column(ch::of(c.name, ch::kCouplerForce));
        for (const char* e : ch::kCouplerEffort) column(ch::of(c.name, e));
    }
    // Servos' and joint forces' efforts (Outputs::controllerEffort, in the model's order).
    for (const ForceModel& f : model_.forces)
        if (isJointServo(f.type) || f.type == ForceType::JointForce)
            column(ch::of(f.name, ch::kEffort));
    // Springs' force, length and rate (Outputs::springForce, …, in the model's order).
    for (const ForceModel& f : model_.forces)
        if (f.type == ForceType::SpringDamper || f.type == ForceType::Cable ||
            f.type == ForceType::RotationalSpringDamper)
            for (const char* c : f.type == ForceType::RotationalSpringDamper
                                     ? ch::kRotationalSpringChannels
                                     : ch::kSpringChannels)
                column(ch::of(f.name, c));
    for (const char* c : {ch::kKineticEnergy, ch::kPotentialEnergy, ch::kTotalEnergy,
                          ch::kDriverWork, ch::kDissipated, ch::kConstraintError})
        column(c);
    for (const int j : model_.frameJoints) {
        const int f = model_.joints[static_cast<std::size_t>(j)].frameMotion->body;
        const std::string& frame = model_.bodies[static_cast<std::size_t>(f)].name;
        for (std::size_t p = 0; p < model_.parts.size(); ++p) {
            if (isGroundPart(model_, p) || model_.parts[p].body == f) continue;
            for (const char* const* names : {ch::kPosition, ch::kVelocity, ch::kAngularVelocity})
                for (int k = 0; k < 3; ++k)
                    column(ch::of(model_.parts[p].name, ch::inFrame(frame, names[k])));
        }
    }
    if (model_.contact.enabled)
        for (const char* c : {ch::kContactCount, ch::kContactNormalForce, ch::kContactMaxDepth})
            column(c);
    for (const SwitchModel& k : model_.switches)  // what sensors switch
        column((k.kind == SwitchKind::Slip || k.kind == SwitchKind::Slipping)
                   ? k.name
                   : ch::of(k.name, k.kind == SwitchKind::Held ? ch::kHeldValue : ch::kSwitchedOn));
    if (!kinematic_)  // each motion's effort and power (the kinematic columns hold them there)
        for (const DriverModel& driver : model_.drivers) {
            column(ch::of(driver.name, ch::kEffort));
            column(ch::of(driver.name, ch::kPower));
        }
    if (kinematic_) {
        for (std::size_t p = 0; p < model_.parts.size(); ++p) {
            if (isGroundPart(model_, p)) continue;
            for (const char* c : ch::kAcceleration) column(ch::of(model_.parts[p].name, c));
            for (const char* c : ch::kAngularAcceleration) column(ch::of(model_.parts[p].name, c));
        }
        for (const DriverModel& driver : model_.drivers) {
            column(ch::of(driver.name, ch::kEffort));
            column(ch::of(driver.name, ch::kPower));
        }
    }
}

void ResultColumns::values(const State& state, const Outputs& o, std::vector<double>& row) const {
    row.clear();
    writeColumns(state, o, row);
    // Each motion's effort and its power, effort × the rate of the coordinate it drives (as the
    // recording's channels of the same names).
    const std::vector<int> offsets = jointCoordinateOffsets(model_);
    for (std::size_t d = 0; d < model_.drivers.size(); ++d) {
        const DriverModel& driver = model_.drivers[d];
        const double effort = d < o.driverEffort.size() ? o.driverEffort[d] : std::nan("");
        const Eigen::Index c = offsets[static_cast<std::size_t>(driver.joint)] + driver.coordinate;
        row.push_back(effort);
        row.push_back(c < o.jointRates.size() ? effort * o.jointRates(c) : std::nan(""));
    }
}

void ResultColumns::values(const State& state, const Outputs& o, const Eigen::VectorXd& vdot,
                           const std::vector<double>& motionPower, std::vector<double>& row) const {
    row.clear();
    writeColumns(state, o, row);
    auto put = [&](double v) { row.push_back(v); };
    for (std::size_t p = 0; p < model_.parts.size(); ++p) {
        if (isGroundPart(model_, p)) continue;
        Vec3 a, alpha;
        partAcceleration(model_.parts[p], state.q, state.v, vdot, a, alpha);
        for (double v : {a.x(), a.y(), a.z(), alpha.x(), alpha.y(), alpha.z()}) put(v);
    }
    for (std::size_t d = 0; d < model_.drivers.size(); ++d) {
        put(d < o.driverEffort.size() ? o.driverEffort[d] : std::nan(""));
        put(d < motionPower.size() ? motionPower[d] : std::nan(""));
    }
}

void ResultColumns::writeColumns(const State& state, const Outputs& o,
                                 std::vector<double>& row) const {
    auto put = [&](double v) { row.push_back(v); };
    put(state.t);
    // Each part off the ground: its centre of mass, its orientation, their rates (a welded
    // part's from its body's: its centre of mass is not the body's).
    for (std::size_t p = 0; p < model_.parts.size(); ++p) {
        if (isGroundPart(model_, p)) continue;
        const PartMotion m = partMotion(model_, p, state.q, state.v);
        const Quat& R = m.orientation;
        for (double x : {m.com.x(), m.com.y(), m.com.z(), R.w(), R.x(), R.y(), R.z()}) put(x);
        for (const Vec3* e : {&m.velocity, &m.angularVelocity})
            for (int k = 0; k < 3; ++k) put((*e)(k));
    }
    int n = 0;
    for (std::size_t j = 0; j < model_.joints.size(); ++j) {
        for (std::size_t k = 0; k < model_.joints[j].coordinates.size(); ++k)
            put(o.jointCoordinates(n++));
        const JointReaction& r = o.reactions[j];
        for (double v : {r.force_W.x(), r.force_W.y(), r.force_W.z(), r.torque_W.x(),
                         r.torque_W.y(), r.torque_W.z()})
            put(v);
        for (std::size_t l = 0; l < model_.limits.size(); ++l)
            if (model_.limits[l].joint == static_cast<int>(j))
                put(l < o.limitForce.size() ? o.limitForce[l] : 0.0);
        for (std::size_t k = 0; k < model_.frictions.size(); ++k)
            if (model_.frictions[k].joint == static_cast<int>(j))
                put(k < o.frictionForce.size() ? o.frictionForce[k] : 0.0);
    }
    for (std::size_t k = 0; k < model_.couplers.size(); ++k)
        for (const std::vector<double>* v : {&o.couplerForce, &o.couplerEffortI, &o.couplerEffortJ})
            put(k < v->size() ? (*v)[k] : 0.0);
    std::size_t servo = 0;
    for (const ForceModel& f : model_.forces)
        if (isJointServo(f.type) || f.type == ForceType::JointForce) {
            put(servo < o.controllerEffort.size() ? o.controllerEffort[servo] : std::nan(""));
            ++servo;
        }
    std::size_t spring = 0;
    for (const ForceModel& f : model_.forces)
        if (f.type == ForceType::SpringDamper || f.type == ForceType::Cable ||
            f.type == ForceType::RotationalSpringDamper) {
            for (const std::vector<double>* v : {&o.springForce, &o.springLength, &o.springRate})
                put(spring < v->size() ? (*v)[spring] : std::nan(""));
            ++spring;
        }
    put(o.energies.kinetic);
    put(o.energies.potential());
    put(o.energies.total());
    put(o.energies.driverWork);
    put(o.energies.dissipated);
    put(o.constraintError);
    for (const int j : model_.frameJoints) {
        const int f = model_.joints[static_cast<std::size_t>(j)].frameMotion->body;
        const Transform& X_PB = model_.bodies[static_cast<std::size_t>(f)].X_PB;
        for (std::size_t p = 0; p < model_.parts.size(); ++p) {
            if (isGroundPart(model_, p) || model_.parts[p].body == f) continue;
            const SeenInFrame seen =
                seenInFrame(X_PB, state.q, state.v, f, partMotion(model_, p, state.q, state.v));
            for (const Vec3* e : {&seen.position, &seen.velocity, &seen.angularVelocity})
                for (int k = 0; k < 3; ++k) put((*e)(k));
        }
    }
    if (model_.contact.enabled) {
        double normal = 0.0, depth = 0.0;
        for (const ContactForce& c : o.contacts) {
            normal += c.normalForce;
            depth = std::max(depth, c.depth);
        }
        put(static_cast<double>(o.contacts.size()));
        put(normal);
        put(depth);
    }
    for (std::size_t k = 0; k < model_.switches.size(); ++k)
        put(k < state.switches.size() ? state.switches[k] : model_.switches[k].initial);
}

CsvWriter::CsvWriter(const Model& model, std::ostream& out) : model_(model), out_(out) {}

void CsvWriter::writeHeader() {
    columns_ = std::make_unique<ResultColumns>(model_, kinematic_);
    const std::vector<std::string>& names = columns_->names();
    for (std::size_t k = 0; k < names.size(); ++k) out_ << (k > 0 ? "," : "") << names[k];
    out_ << '\n';
}

void CsvWriter::writeRow(const State& state, const Outputs& outputs) {
    columns_->values(state, outputs, row_);
    writeValues();
}

void CsvWriter::writeRow(const State& state, const Outputs& outputs, const Eigen::VectorXd& vdot,
                         const std::vector<double>& motionPower) {
    columns_->values(state, outputs, vdot, motionPower, row_);
    writeValues();
}

void CsvWriter::writeValues() {
    for (std::size_t k = 0; k < row_.size(); ++k)
        out_ << (k > 0 ? "," : "") << formatDouble(row_[k]);
    out_ << '\n';
}

}  // namespace engine::io
