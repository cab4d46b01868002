#include "engine/constraints/constraints.h"

#include <cmath>

#include "engine/model/model.h"

namespace engine {
namespace {

const BodyFrame* frameOf(const std::vector<BodyFrame>& frames, int body) {
    return body == kGround ? nullptr : &frames[static_cast<std::size_t>(body)];
}

// Rows of one primitive (seed 001) between markers I (on body i) and J (on body j).
void primitiveRows(const Primitive& p, const BodyFrame* fi, const Transform& X_BI,
                   const BodyFrame* fj, const Transform& X_BJ, std::vector<ConstraintRow>& rows) {
    const KinematicVector Pi = markerPoint(fi, X_BI, 0);
    const KinematicVector Pj = markerPoint(fj, X_BJ, 1);
    switch (p.type) {
    case PrimitiveType::Coincident: {
        const KinematicVector d = Pj - Pi;
        for (int k = 0; k < 3; ++k) rows.push_back(component(d, k));
        break;
    }
    case PrimitiveType::Dot1:
        rows.push_back(dot(markerAxis(fi, X_BI, p.axisI, 0), markerAxis(fj, X_BJ, p.axisJ, 1)));
        break;
    case PrimitiveType::Dot2:
        rows.push_back(dot(markerAxis(fi, X_BI, p.axisI, 0), Pj - Pi));
        break;
    case PrimitiveType::Distance: {
        // (d·d − L²) / (2L): scaled so that the multiplier is the rod's force [N].
        const KinematicVector d = Pj - Pi;
        ConstraintRow r = dot(d, d);
        const double scale = 1.0 / (2.0 * p.length);
        r.value = (r.value - p.length * p.length) * scale;
        r.rate *= scale;
        r.gamma *= scale;
        r.Ji *= scale;
        r.Jj *= scale;
        rows.push_back(r);
        break;
    }
    }
}

double wrapAngle(double a) {
    a = std::remainder(a, 2.0 * kPi);
    return a <= -kPi ? a + 2.0 * kPi : a;
}

}  // namespace

ConstraintRow jointCoordinate(const Model& model, const std::vector<BodyFrame>& frames, int joint,
                              int coordinate) {
    const JointModel& jm = model.joints[static_cast<std::size_t>(joint)];
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(jm.markerI)];
    const MarkerModel& mj = model.markers[static_cast<std::size_t>(jm.markerJ)];
    const BodyFrame* fi = frameOf(frames, mi.body);
    const BodyFrame* fj = frameOf(frames, mj.body);
    const KinematicVector zj = markerAxis(fj, mj.X_BM, 2, 1);

    if (jm.coordinates[static_cast<std::size_t>(coordinate)] == JointAxis::Translation)
        return dot(zj, markerPoint(fi, mi.X_BM, 0) - markerPoint(fj, mj.X_BM, 1));

    // Angle of I's x axis from J's x axis about J's z axis. With the joint's axes aligned,
    // θ̇ = (ω_i − ω_j)·z_J and θ̈ = (α_i − α_j)·z_J + (ω_j × z_J)·(ω_i − ω_j).
    const Vec3 xi = markerAxis(fi, mi.X_BM, 0, 0).x;
    const Vec3 xj = markerAxis(fj, mj.X_BM, 0, 1).x;
    ConstraintRow r;
    r.value = std::atan2(xj.cross(xi).dot(zj.x), xj.dot(xi));
    const Vec3 wi = fi ? fi->w : Vec3::Zero();
    const Vec3 wj = fj ? fj->w : Vec3::Zero();
    r.rate = (wi - wj).dot(zj.x);
    r.gamma = -wj.cross(zj.x).dot(wi - wj);
    if (fi) r.Ji.rightCols<3>() = zj.x.transpose() * fi->R;
    if (fj) r.Jj.rightCols<3>() = -zj.x.transpose() * fj->R;
    return r;
}

void evaluateConstraints(const Model& model, double t, const std::vector<BodyFrame>& frames,
                         ConstraintEvaluation& out) {
    const int nc = model.constraintRows();
    out.Phi.resize(nc);
    out.nu.setZero(nc);
    out.gamma.resize(nc);
    out.level.assign(static_cast<std::size_t>(nc), MotionLevel::Position);

    std::vector<Eigen::Triplet<double>> triplets;
    triplets.reserve(static_cast<std::size_t>(nc) * 12);
    // Every entry of a row's body blocks is stored, zero or not, so the sparsity pattern (and
    // the solver's symbolic analysis) stays the same from one evaluation to the next.
    auto addRow = [&](int row, int bi, int bj, const ConstraintRow& r) {
        for (int c = 0; c < 6; ++c) {
            if (bi != kGround) triplets.emplace_back(row, 6 * bi + c, r.Ji(c));
            if (bj != kGround) triplets.emplace_back(row, 6 * bj + c, r.Jj(c));
        }
    };

    // Joints.
    std::vector<ConstraintRow> rows;
    int row = 0;
    for (const JointModel& joint : model.joints) {
        const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
        const MarkerModel& mj = model.markers[static_cast<std::size_t>(joint.markerJ)];
        rows.clear();
        for (const Primitive& p : joint.primitives)
            primitiveRows(p, frameOf(frames, mi.body), mi.X_BM, frameOf(frames, mj.body), mj.X_BM, rows);
        for (const ConstraintRow& r : rows) {
            out.Phi(row) = r.value;
            out.gamma(row) = r.gamma;
            addRow(row, mi.body, mj.body, r);
            ++row;
        }
    }

    // Drivers: c(q) − f(t) = 0, ċ = f(t), or c̈ = f(t).
    for (const DriverModel& driver : model.drivers) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(driver.joint)];
        const ConstraintRow c = jointCoordinate(model, frames, driver.joint, driver.coordinate);
        const bool angle = joint.coordinates[static_cast<std::size_t>(driver.coordinate)] == JointAxis::Rotation;
        out.level[static_cast<std::size_t>(row)] = driver.level;
        switch (driver.level) {
        case MotionLevel::Position: {
            const double residual = c.value - driver.f.eval(t);
            out.Phi(row) = angle ? wrapAngle(residual) : residual;
            out.nu(row) = driver.f.derivative(t);
            out.gamma(row) = c.gamma + driver.f.secondDerivative(t);
            break;
        }
        case MotionLevel::Velocity:
            out.Phi(row) = 0.0;
            out.nu(row) = driver.f.eval(t);
            out.gamma(row) = c.gamma + driver.f.derivative(t);
            break;
        case MotionLevel::Acceleration:
            out.Phi(row) = 0.0;
            out.gamma(row) = c.gamma + driver.f.eval(t);
            break;
        }
        addRow(row, model.markers[static_cast<std::size_t>(joint.markerI)].body,
               model.markers[static_cast<std::size_t>(joint.markerJ)].body, c);
        ++row;
    }

    out.Phi_q.resize(nc, model.velocitySize());
    out.Phi_q.setFromTriplets(triplets.begin(), triplets.end());
}

double maxPositionResidual(const ConstraintEvaluation& evaluation) {
    double worst = 0.0;
    for (Eigen::Index k = 0; k < evaluation.Phi.size(); ++k)
        if (evaluation.level[static_cast<std::size_t>(k)] == MotionLevel::Position)
            worst = std::max(worst, std::abs(evaluation.Phi(k)));
    return worst;
}

}  // namespace engine
