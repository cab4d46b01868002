#include "engine/constraints/constraints.h"

#include <cmath>

#include "engine/model/model.h"

namespace engine {
namespace {

const BodyFrame* frameOf(const std::vector<BodyFrame>& frames, int body) {
    return body == kGround ? nullptr : &frames[static_cast<std::size_t>(body)];
}

// The kinematic vectors of one joint's markers, each computed once and only when a primitive
// needs it: the offset d = P_J − P_I and the axes of both markers.
class JointVectors {
public:
    JointVectors(const BodyFrame* fi, const MarkerModel& I, const BodyFrame* fj, const MarkerModel& J)
        : fi_(fi), fj_(fj), I_(I), J_(J) {}

    const KinematicVector& offset() {
        if (!haveOffset_) {
            offset_ = markerPoint(fj_, J_.X_BM, 1) - markerPoint(fi_, I_.X_BM, 0);
            haveOffset_ = true;
        }
        return offset_;
    }
    const KinematicVector& axisI(int k) { return axis(axesI_, haveI_, fi_, I_, k, 0); }
    const KinematicVector& axisJ(int k) { return axis(axesJ_, haveJ_, fj_, J_, k, 1); }

private:
    const KinematicVector& axis(KinematicVector (&axes)[3], bool (&have)[3], const BodyFrame* f,
                                const MarkerModel& m, int k, int side) {
        if (!have[k]) {
            axes[k] = markerAxis(f, m.R_BM.col(k), side);
            have[k] = true;
        }
        return axes[k];
    }

    const BodyFrame* fi_;
    const BodyFrame* fj_;
    const MarkerModel& I_;
    const MarkerModel& J_;
    KinematicVector offset_;
    KinematicVector axesI_[3], axesJ_[3];
    bool haveOffset_ = false;
    bool haveI_[3] = {false, false, false};
    bool haveJ_[3] = {false, false, false};
};

// Rows of one primitive (seed 001) between markers I (on body i) and J (on body j).
void primitiveRows(const Primitive& p, JointVectors& v, std::vector<ConstraintRow>& rows) {
    switch (p.type) {
    case PrimitiveType::Coincident:
        for (int k = 0; k < 3; ++k) rows.push_back(component(v.offset(), k));
        break;
    case PrimitiveType::Dot1:
        rows.push_back(dot(v.axisI(p.axisI), v.axisJ(p.axisJ)));
        break;
    case PrimitiveType::Dot2:
        rows.push_back(dot(v.axisI(p.axisI), v.offset()));
        break;
    case PrimitiveType::Distance: {
        // (d·d − L²) / (2L): scaled so that the multiplier is the rod's force [N].
        ConstraintRow r = dot(v.offset(), v.offset());
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
    const KinematicVector zj = markerAxis(fj, mj.R_BM.col(2), 1);

    if (jm.coordinates[static_cast<std::size_t>(coordinate)] == JointAxis::Translation)
        return dot(zj, markerPoint(fi, mi.X_BM, 0) - markerPoint(fj, mj.X_BM, 1));

    // Angle of I's x axis from J's x axis about J's z axis. With the joint's axes aligned,
    // θ̇ = (ω_i − ω_j)·z_J and θ̈ = (α_i − α_j)·z_J + (ω_j × z_J)·(ω_i − ω_j).
    const Vec3 xi = markerAxis(fi, mi.R_BM.col(0), 0).x;
    const Vec3 xj = markerAxis(fj, mj.R_BM.col(0), 1).x;
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

    // Φq has a fixed pattern per model: every entry of a row's body blocks is stored, zero or
    // not, so the solver's symbolic analysis stays valid. The first evaluation lays the pattern
    // out; later ones write the values in place.
    const bool fresh = out.patternSerial != model.serial || out.Phi_q.rows() != nc;
    std::vector<Eigen::Triplet<double>> triplets;
    if (fresh) {
        triplets.reserve(static_cast<std::size_t>(nc) * 12);
        out.slotI.assign(static_cast<std::size_t>(nc), -1);
        out.slotJ.assign(static_cast<std::size_t>(nc), -1);
        out.bodyI.assign(static_cast<std::size_t>(nc), kGround);
        out.bodyJ.assign(static_cast<std::size_t>(nc), kGround);
    }
    double* values = fresh ? nullptr : out.Phi_q.valuePtr();
    auto addRow = [&](int row, int bi, int bj, const ConstraintRow& r) {
        if (fresh) {
            out.bodyI[static_cast<std::size_t>(row)] = bi;
            out.bodyJ[static_cast<std::size_t>(row)] = bj;
            for (int c = 0; c < 6; ++c) {
                if (bi != kGround) triplets.emplace_back(row, 6 * bi + c, r.Ji(c));
                if (bj != kGround) triplets.emplace_back(row, 6 * bj + c, r.Jj(c));
            }
            return;
        }
        if (const int k = out.slotI[static_cast<std::size_t>(row)]; k >= 0)
            for (int c = 0; c < 6; ++c) values[k + c] = r.Ji(c);
        if (const int k = out.slotJ[static_cast<std::size_t>(row)]; k >= 0)
            for (int c = 0; c < 6; ++c) values[k + c] = r.Jj(c);
    };

    // Joints.
    std::vector<ConstraintRow> rows;
    int row = 0;
    for (const JointModel& joint : model.joints) {
        const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
        const MarkerModel& mj = model.markers[static_cast<std::size_t>(joint.markerJ)];
        rows.clear();
        JointVectors vectors(frameOf(frames, mi.body), mi, frameOf(frames, mj.body), mj);
        for (const Primitive& p : joint.primitives) primitiveRows(p, vectors, rows);
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

    if (fresh) {
        out.Phi_q.resize(nc, model.velocitySize());
        out.Phi_q.setFromTriplets(triplets.begin(), triplets.end());
        out.Phi_q.makeCompressed();
        // Where each row's body blocks start in the value array (columns ascend within a row).
        for (int r = 0; r < nc; ++r) {
            const int begin = out.Phi_q.outerIndexPtr()[r];
            const int bi = out.bodyI[static_cast<std::size_t>(r)], bj = out.bodyJ[static_cast<std::size_t>(r)];
            if (bi != kGround) out.slotI[static_cast<std::size_t>(r)] = begin + (bj != kGround && bj < bi ? 6 : 0);
            if (bj != kGround) out.slotJ[static_cast<std::size_t>(r)] = begin + (bi != kGround && bi < bj ? 6 : 0);
        }
        out.patternSerial = model.serial;
    }
}

namespace {

// Positions only (no Jacobians): a marker's origin and axes in the world.
Vec3 pointValue(const BodyFrame* f, const Transform& X_BM) { return f ? Vec3(f->r + f->R * X_BM.p) : X_BM.p; }
Vec3 axisValue(const BodyFrame* f, const MarkerModel& m, int k) {
    return f ? Vec3(f->R * m.R_BM.col(k)) : Vec3(m.R_BM.col(k));
}

}  // namespace

double jointCoordinateValue(const Model& model, const std::vector<BodyFrame>& frames, int jointIndex, int coordinate) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(jointIndex)];
    const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
    const MarkerModel& mj = model.markers[static_cast<std::size_t>(joint.markerJ)];
    const BodyFrame* fi = frameOf(frames, mi.body);
    const BodyFrame* fj = frameOf(frames, mj.body);
    const Vec3 zj = axisValue(fj, mj, 2);
    if (joint.coordinates[static_cast<std::size_t>(coordinate)] == JointAxis::Translation)
        return zj.dot(pointValue(fi, mi.X_BM) - pointValue(fj, mj.X_BM));
    const Vec3 xi = axisValue(fi, mi, 0), xj = axisValue(fj, mj, 0);
    return std::atan2(xj.cross(xi).dot(zj), xj.dot(xi));
}

void evaluateConstraintResiduals(const Model& model, double t, const std::vector<BodyFrame>& frames,
                                 ConstraintEvaluation& out) {
    const int nc = model.constraintRows();
    out.Phi.resize(nc);
    out.nu.setZero(nc);
    int row = 0;
    for (const JointModel& joint : model.joints) {
        const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
        const MarkerModel& mj = model.markers[static_cast<std::size_t>(joint.markerJ)];
        const BodyFrame* fi = frameOf(frames, mi.body);
        const BodyFrame* fj = frameOf(frames, mj.body);
        const Vec3 d = pointValue(fj, mj.X_BM) - pointValue(fi, mi.X_BM);
        for (const Primitive& p : joint.primitives) {
            switch (p.type) {
            case PrimitiveType::Coincident:
                for (int k = 0; k < 3; ++k) out.Phi(row++) = d(k);
                break;
            case PrimitiveType::Dot1:
                out.Phi(row++) = axisValue(fi, mi, p.axisI).dot(axisValue(fj, mj, p.axisJ));
                break;
            case PrimitiveType::Dot2:
                out.Phi(row++) = axisValue(fi, mi, p.axisI).dot(d);
                break;
            case PrimitiveType::Distance:
                out.Phi(row++) = (d.squaredNorm() - p.length * p.length) / (2.0 * p.length);
                break;
            }
        }
    }
    for (const DriverModel& driver : model.drivers) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(driver.joint)];
        switch (driver.level) {
        case MotionLevel::Position: {
            const double residual = jointCoordinateValue(model, frames, driver.joint, driver.coordinate) - driver.f.eval(t);
            const bool angle = joint.coordinates[static_cast<std::size_t>(driver.coordinate)] == JointAxis::Rotation;
            out.Phi(row) = angle ? wrapAngle(residual) : residual;
            out.nu(row) = driver.f.derivative(t);
            break;
        }
        case MotionLevel::Velocity:
            out.Phi(row) = 0.0;
            out.nu(row) = driver.f.eval(t);
            break;
        case MotionLevel::Acceleration:
            out.Phi(row) = 0.0;
            break;
        }
        ++row;
    }
}

double maxPositionResidual(const Model& model, const ConstraintEvaluation& evaluation, int* where) {
    double worst = 0.0;
    Eigen::Index row = 0;
    auto consider = [&](double gap, Eigen::Index at) {
        if (gap <= worst) return;
        worst = gap;
        if (where) *where = static_cast<int>(at);
    };
    if (where) *where = 0;
    for (const JointModel& joint : model.joints) {
        for (const Primitive& primitive : joint.primitives) {
            if (primitive.type == PrimitiveType::Coincident) {
                consider(evaluation.Phi.segment<3>(row).norm(), row);
                row += 3;
            } else {
                consider(std::abs(evaluation.Phi(row)), row);
                ++row;
            }
        }
    }
    for (; row < evaluation.Phi.size(); ++row)
        if (evaluation.level[static_cast<std::size_t>(row)] == MotionLevel::Position)
            consider(std::abs(evaluation.Phi(row)), row);
    return worst;
}

}  // namespace engine
