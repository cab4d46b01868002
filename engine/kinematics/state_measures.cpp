#include "engine/kinematics/state_measures.h"

#include <cmath>

#include "engine/expr/expression.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/model/model.h"

namespace engine {
namespace {

// A measure's frame in the world: the world itself when not given.
MarkerFrame frameOf(const MeasureFrame& f, const std::vector<BodyFrame>& frames) {
    MarkerFrame out;
    if (!f.given) return out;
    if (f.body == kGround) {
        out.R = f.X_BM.rotationMatrix();
        out.p = f.X_BM.p;
        return out;
    }
    const BodyFrame& b = frames[static_cast<std::size_t>(f.body)];
    const Vec3 s = b.R * f.X_BM.p;
    out.R = b.R * f.X_BM.rotationMatrix();
    out.p = b.r + s;
    out.v = b.v + b.w.cross(s);
    out.w = b.w;
    return out;
}

}  // namespace

double measureValue(const Model& model, const MeasureModel& m, const std::vector<BodyFrame>& frames,
                    const Eigen::VectorXd& jointCoordinates) {
    if (m.kind == MeasureKind::Q || m.kind == MeasureKind::QD) {
        const ConstraintRow c = jointCoordinate(model, frames, m.joint, m.coordinate);
        if (m.kind == MeasureKind::QD) return c.rate;
        const JointModel& joint = model.joints[static_cast<std::size_t>(m.joint)];
        if (joint.coordinates[static_cast<std::size_t>(m.coordinate)] == JointAxis::Rotation &&
            jointCoordinates.size() > m.slot)
            return unwindAngle(c.value, jointCoordinates(m.slot));
        return c.value;
    }
    const MarkerFrame i = frameOf(m.frames[0], frames);
    const MarkerFrame j = frameOf(m.frames[1], frames);
    const Mat3 Rk = m.frames[2].given ? frameOf(m.frames[2], frames).R : Mat3::Identity();
    const Vec3 d = i.p - j.p;
    switch (m.kind) {
    case MeasureKind::DM:
        return d.norm();
    case MeasureKind::DX:
    case MeasureKind::DY:
    case MeasureKind::DZ:
        return Rk.col(static_cast<int>(m.kind) - static_cast<int>(MeasureKind::DX)).dot(d);
    case MeasureKind::VR: {
        const double length = d.norm();
        return length > 0.0 ? (i.v - j.v).dot(d) / length : 0.0;
    }
    case MeasureKind::VM:
        return (i.v - j.v).norm();
    case MeasureKind::VX:
    case MeasureKind::VY:
    case MeasureKind::VZ:
        return Rk.col(static_cast<int>(m.kind) - static_cast<int>(MeasureKind::VX)).dot(i.v - j.v);
    case MeasureKind::WM:
        return (i.w - j.w).norm();
    case MeasureKind::WX:
    case MeasureKind::WY:
    case MeasureKind::WZ:
        return Rk.col(static_cast<int>(m.kind) - static_cast<int>(MeasureKind::WX)).dot(i.w - j.w);
    case MeasureKind::AX:
        return std::atan2(-i.R.col(2).dot(j.R.col(1)), i.R.col(2).dot(j.R.col(2)));
    case MeasureKind::AY:
        return std::atan2(i.R.col(2).dot(j.R.col(0)), i.R.col(2).dot(j.R.col(2)));
    case MeasureKind::AZ:
        return std::atan2(i.R.col(0).dot(j.R.col(1)), i.R.col(0).dot(j.R.col(0)));
    case MeasureKind::Q:
    case MeasureKind::QD:
        break;
    }
    return 0.0;
}

void evaluateStateValues(const Model& model, double t, const std::vector<BodyFrame>& frames,
                         const Eigen::VectorXd& jointCoordinates, std::vector<double>& values) {
    const std::size_t variables = model.variables.size();
    values.resize(variables + model.measures.size());
    for (std::size_t k = 0; k < model.measures.size(); ++k)
        values[variables + k] = measureValue(model, model.measures[k], frames, jointCoordinates);
    for (std::size_t k = 0; k < variables; ++k) {
        const VariableModel& v = model.variables[k];
        values[k] = evalStateExpression(v.expression, v.inputs, t, values);
    }
}

double evalStateExpression(const Expression& expression, const std::vector<int>& inputs, double t,
                           const std::vector<double>& values) {
    if (inputs.empty()) return expression.eval(t);
    double buffer[16];
    std::vector<double> more;
    double* in = buffer;
    if (inputs.size() > 16) {
        more.resize(inputs.size());
        in = more.data();
    }
    for (std::size_t k = 0; k < inputs.size(); ++k)
        in[k] = values[static_cast<std::size_t>(inputs[k])];
    return expression.eval(t, in);
}

}  // namespace engine
