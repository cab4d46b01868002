#include "engine/analysis/weld_reactions.h"

#include <algorithm>
#include <cmath>

#include "engine/forces/forces.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/kinematics.h"
#include "engine/model/layout.h"

namespace engine {

namespace {

// A wrench: a force and a moment about a point (the weld's marker I origin).
struct Wrench {
    Vec3 F = Vec3::Zero(), M = Vec3::Zero();
    void add(const Vec3& force, const Vec3& at, const Vec3& about, const Vec3& moment) {
        F += force;
        M += moment + (at - about).cross(force);
    }
};

}  // namespace

Status foldedWeldReactions(const Model& model, const State& state, const Eigen::VectorXd& vdot,
                           const StepResult* step, const std::vector<BodyFrame>& frames,
                           Outputs& out) {
    if (!model.unfolded) return {};
    const Model& parts = *model.unfolded;  // a body per moving part: what acts on each
    const int nu = parts.bodyCount();
    // Each part as its body moves it: its frame at its centre of mass on its own principal
    // axes (the unfolded model's body), its velocity and acceleration the body's at that point.
    thread_local Eigen::VectorXd qU, vU, aU, gU;
    qU.setZero(static_cast<Eigen::Index>(layout::kPositionsPerBody) * nu);
    vU.setZero(static_cast<Eigen::Index>(layout::kVelocitiesPerBody) * nu);
    aU.setZero(vU.size());
    for (int u = 0; u < nu; ++u) {
        const BodyModel& own = parts.bodies[static_cast<std::size_t>(u)];
        const auto p = static_cast<std::size_t>(own.partIndex);
        const int b = model.parts[p].body;
        Transform X_WB;
        Vec3 r_B = Vec3::Zero(), v_B = Vec3::Zero(), w = Vec3::Zero(), a_B = Vec3::Zero(),
             alpha = Vec3::Zero();
        if (b != kGround) {
            const BodyFrame& f = frames[static_cast<std::size_t>(b)];
            X_WB = Transform{Quat(f.R).normalized(), f.r};
            r_B = f.r;
            v_B = f.v;
            w = f.w;
            a_B = layout::linear(vdot, b);
            alpha = f.R * Vec3(layout::angular(vdot, b));
        }
        const Transform X_WU = partPose(model, p, X_WB) * own.X_PB;
        const Vec3 d = X_WU.p - r_B;
        layout::position(qU, u) = X_WU.p;
        layout::orientation(qU, u) =
            Eigen::Vector4d(X_WU.R.w(), X_WU.R.x(), X_WU.R.y(), X_WU.R.z());
        layout::linear(vU, u) = v_B + w.cross(d);
        layout::angular(vU, u) = X_WU.R.conjugate() * w;
        layout::linear(aU, u) = a_B + alpha.cross(d) + w.cross(w.cross(d));
        layout::angular(aU, u) = X_WU.R.conjugate() * alpha;
    }
    thread_local std::vector<BodyFrame> framesU;
    computeBodyFrames(parts, qU, vU, framesU);
    gU.setZero(vU.size());
    computeAppliedForces(parts, state.t, framesU, vU, state.jointCoordinates, state.lagged, gU);
    // An inextensible cable's tension over the step pulls the parts its pieces end on.
    if (step && step->valid && !step->cableTension.empty() &&
        std::abs(step->t - state.t) <= 1e-9 * std::max(1.0, std::abs(state.t))) {
        const std::vector<int> offsets = jointCoordinateOffsets(parts);
        for (std::size_t f = 0; f < parts.forces.size() && f < step->cableTension.size(); ++f) {
            const std::vector<double>& tension = step->cableTension[f];
            if (tension.empty()) continue;
            const std::vector<CableSpanRow> spans =
                cableSpanRows(parts, parts.forces[f], framesU, state.jointCoordinates, offsets);
            for (std::size_t s = 0; s < spans.size() && s < tension.size(); ++s)
                for (int side = 0; side < 2; ++side)
                    if (spans[s].body[side] != kGround)
                        layout::twist(gU, spans[s].body[side]) -= tension[s] * spans[s].J[side];
        }
    }

    // Per part: what its motion needs beyond the forces on it (world axes, about its COM).
    std::vector<Vec3> need(static_cast<std::size_t>(nu)), needMoment(static_cast<std::size_t>(nu));
    for (int u = 0; u < nu; ++u) {
        const BodyModel& own = parts.bodies[static_cast<std::size_t>(u)];
        const BodyFrame& f = framesU[static_cast<std::size_t>(u)];
        need[static_cast<std::size_t>(u)] =
            own.mass * Vec3(layout::linear(aU, u)) - Vec3(layout::linear(gU, u));
        needMoment[static_cast<std::size_t>(u)] =
            f.R *
            (own.inertia.cwiseProduct(Vec3(layout::angular(aU, u))) - Vec3(layout::angular(gU, u)));
    }

    for (std::size_t j = 0; j < model.joints.size(); ++j) {
        const JointModel& weld = model.joints[j];
        if (!weld.folded) continue;
        JointReaction& r = out.reactions[j];
        r = {};
        const MarkerFrame I = markerFrame(model, frames, weld.markerI);
        const MarkerFrame J = markerFrame(model, frames, weld.markerJ);
        if (weld.carried.empty()) {
            r.force_J = r.torque_J = Vec3::Zero();
            continue;
        }
        auto carried = [&](int part) {
            return std::binary_search(weld.carried.begin(), weld.carried.end(), part);
        };
        Wrench w;
        for (const int p : weld.carried) {
            const int u = parts.bodyOfPart[static_cast<std::size_t>(p)];
            if (u == kGround) continue;
            w.add(need[static_cast<std::size_t>(u)], framesU[static_cast<std::size_t>(u)].r, I.p,
                  needMoment[static_cast<std::size_t>(u)]);
        }
        // Less what the other joints, motions and couplers put on the carried parts.
        auto partOfMarker = [&](int m) { return model.markers[static_cast<std::size_t>(m)].part; };
        for (std::size_t k = 0; k < model.joints.size(); ++k) {
            const JointModel& other = model.joints[k];
            if (other.folded) continue;
            const bool onI = carried(partOfMarker(other.markerI)),
                       onJ = carried(partOfMarker(other.markerJ));
            if (onI == onJ) continue;  // (neither, or both: within S)
            const JointReaction& rk = out.reactions[k];
            const Vec3 at = markerFrame(model, frames, other.markerI).p;
            const double sign = onI ? 1.0 : -1.0;
            w.add(-sign * rk.force_W, at, I.p, -sign * rk.torque_W);
        }
        auto coordinateLoad = [&](int joint, int coordinate, double effort) {
            const JointModel& other = model.joints[static_cast<std::size_t>(joint)];
            if (other.folded) return;
            const bool onI = carried(partOfMarker(other.markerI)),
                       onJ = carried(partOfMarker(other.markerJ));
            if (onI == onJ) return;
            const MarkerFrame mi = markerFrame(model, frames, other.markerI);
            const MarkerFrame mj = markerFrame(model, frames, other.markerJ);
            const Vec3 along = effort * (onI ? 1.0 : -1.0) * mj.R.col(2);
            const bool angle =
                other.coordinates[static_cast<std::size_t>(coordinate)] == JointAxis::Rotation;
            if (angle)
                w.add(Vec3::Zero(), mi.p, I.p, -along);
            else
                w.add(-along, mi.p, I.p, Vec3::Zero());
        };
        for (std::size_t d = 0; d < model.drivers.size() && d < out.driverEffort.size(); ++d)
            coordinateLoad(model.drivers[d].joint, model.drivers[d].coordinate,
                           out.driverEffort[d]);
        for (std::size_t k = 0; k < model.couplers.size() && k < out.couplerEffortI.size(); ++k) {
            const CouplerModel& c = model.couplers[k];
            for (std::size_t t = 0; t < c.terms.size() && t < 2; ++t)
                coordinateLoad(c.terms[t].joint, c.terms[t].coordinate,
                               t == 0 ? out.couplerEffortI[k] : out.couplerEffortJ[k]);
        }
        // Less contact on the carried parts.
        for (const ContactForce& c : out.contacts) {
            const Vec3 onB = c.normalForce * c.normal_W + c.frictionForce_W;
            if (carried(c.partB)) w.add(-onB, c.point_W, I.p, Vec3::Zero());
            if (carried(c.partA)) w.add(onB, c.point_W, I.p, Vec3::Zero());
        }
        // The weld pulls S with w; the reaction is the pull on part I.
        const double sign = carried(partOfMarker(weld.markerI)) ? 1.0 : -1.0;
        r.force_W = sign * w.F;
        r.torque_W = sign * w.M;
        r.force_J = J.R.transpose() * r.force_W;
        r.torque_J = J.R.transpose() * r.torque_W;
    }
    return {};
}

}  // namespace engine
