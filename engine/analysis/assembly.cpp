#include "engine/analysis/assembly.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include <Eigen/Cholesky>

#include "engine/analysis/statics.h"
#include "engine/integrators/integrator.h"
#include "engine/kinematics/kinematics.h"
#include "engine/kinematics/retract.h"
#include "engine/math/constants.h"
#include "engine/math/number_text.h"
#include "engine/model/layout.h"

namespace engine {

namespace {

constexpr double kUnstickAngle = 1e-3;  // rad: the turn that gives parallel axes a gradient
constexpr double kHeld = 1e4;           // weight of the equations held while one is cut
constexpr double kClosed = 1e-12;       // m, rad: an equation this close is met
// Dense least squares beyond this many velocity coordinates (50 parts) would take seconds: the
// failure is then reported as the projection found it.
constexpr int kLargestDiagnosis = 300;
constexpr int kLeastSquaresIterations = 100;

// The mass metric's diagonal: m, m, m, J'x, J'y, J'z per body.
Eigen::VectorXd massDiagonal(const Model& model) {
    Eigen::VectorXd d(model.velocitySize());
    for (int b = 0; b < model.bodyCount(); ++b) {
        const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
        layout::linear(d, b).setConstant(body.mass);
        layout::angular(d, b) = body.inertia;
    }
    return d;
}

// Φ of the position-level rows (others 0) and, on request, Φq dense, at q (time t).
struct Equations {
    const Model& model;
    std::vector<BodyFrame> frames;
    ConstraintEvaluation evaluation;

    void at(double t, const Eigen::VectorXd& q, Eigen::VectorXd& phi, Eigen::MatrixXd* J) {
        computeBodyFrames(model, q, Eigen::VectorXd::Zero(model.velocitySize()), frames);
        evaluateConstraints(model, t, frames, evaluation, false);
        phi = evaluation.Phi;
        if (J) *J = Eigen::MatrixXd(evaluation.Phi_q);
        for (Eigen::Index r = 0; r < phi.size(); ++r) {
            if (evaluation.level[static_cast<std::size_t>(r)] == MotionLevel::Position) continue;
            phi(r) = 0.0;
            if (J) J->row(r).setZero();
        }
    }
};

// Turns the parts whose perpendicularity equations have no gradient at the start (the two axes
// exactly parallel), so that Newton sees which way to turn them.
void unstickParallelAxes(const Model& model, State& state) {
    std::vector<BodyFrame> frames;
    computeBodyFrames(model, state.q, state.v, frames);
    for (const JointModel& joint : model.joints) {
        for (const Primitive& p : joint.primitives) {
            if (p.type != PrimitiveType::Dot1) continue;
            const Vec3 a = markerFrame(model, frames, joint.markerI).R.col(p.axisI);
            const Vec3 b = markerFrame(model, frames, joint.markerJ).R.col(p.axisJ);
            if (a.cross(b).norm() > 1e-9) continue;
            int body = model.markers[static_cast<std::size_t>(joint.markerI)].body;
            if (body == kGround) body = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
            if (body == kGround) continue;
            const Mat3& R = frames[static_cast<std::size_t>(body)].R;
            rotateBody(state.q, body, R.transpose() * a.unitOrthogonal() * kUnstickAngle);
            frames[static_cast<std::size_t>(body)] = bodyFrame(state.q, state.v, body);
        }
    }
}

// Levenberg–Marquardt on ½ Σ (w_r Φ_r)² from q (in place), steps damped in the mass metric.
// Stops when the equations are met, when the cost stops falling, or after `iterations`.
void leastSquares(Equations& eq, double t, Eigen::VectorXd& q, const Eigen::VectorXd& w,
                  const Eigen::VectorXd& D, int iterations) {
    const Model& model = eq.model;
    Eigen::VectorXd phi, phiTry, qTry;
    Eigen::MatrixXd J;
    eq.at(t, q, phi, &J);
    double mu = -1.0;
    for (int k = 0; k < iterations; ++k) {
        if (!phi.allFinite() || phi.cwiseAbs().maxCoeff() <= kClosed) return;
        const Eigen::VectorXd r = w.cwiseProduct(phi);
        const Eigen::MatrixXd Jw = w.asDiagonal() * J;
        const Eigen::VectorXd g = Jw.transpose() * r;
        const Eigen::MatrixXd H = Jw.transpose() * Jw;
        const double cost = 0.5 * r.squaredNorm();
        if (mu < 0.0) mu = 1e-3 * std::max(H.diagonal().cwiseQuotient(D).maxCoeff(), 1e-300);
        bool accepted = false;
        while (!accepted && mu < 1e30) {
            Eigen::MatrixXd A = H;
            A.diagonal() += mu * D;
            const Eigen::VectorXd delta = -A.ldlt().solve(g);
            qTry = q;
            retract(model, qTry, delta);
            eq.at(t, qTry, phiTry, nullptr);
            const double costTry = 0.5 * w.cwiseProduct(phiTry).squaredNorm();
            if (phiTry.allFinite() && costTry < cost) {
                accepted = true;
                mu = std::max(mu / 3.0, 1e-300);
                q = qTry;
                if (cost - costTry <= 1e-14 * cost) return;  // stalled: a minimum
            } else {
                mu *= 4.0;
            }
        }
        if (!accepted) return;
        eq.at(t, q, phi, &J);
    }
}

// How far a joint is from closing at Φ: the largest distance of its point equations [m] and the
// largest angle of its axis equations [rad]; `kind` the primitive of the largest distance. A
// rod's Φ = (d·d − L²)/(2L) is turned back into the length it misses by, |d| − L.
void jointGaps(const Model& model, const Eigen::VectorXd& phi, int j, double& length, double& angle,
               PrimitiveType* kind = nullptr) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
    int row = model.jointRowOffset[static_cast<std::size_t>(j)];
    length = angle = 0.0;
    auto longer = [&](double gap, PrimitiveType type) {
        if (gap <= length) return;
        length = gap;
        if (kind) *kind = type;
    };
    for (const Primitive& p : joint.primitives) {
        switch (p.type) {
        case PrimitiveType::Coincident:
            longer(phi.segment<3>(row).norm(), p.type);
            break;
        case PrimitiveType::Dot1:
            angle = std::max(angle, std::asin(std::min(1.0, std::abs(phi(row)))));
            break;
        case PrimitiveType::Dot2:
            longer(std::abs(phi(row)), p.type);
            break;
        case PrimitiveType::Distance: {
            const double L = p.length;
            longer(std::abs(std::sqrt(std::max(0.0, L * L + 2.0 * L * phi(row))) - L), p.type);
            break;
        }
        case PrimitiveType::OnCurve:
            longer(phi.segment<2>(row).norm(), p.type);
            break;
        case PrimitiveType::CamContact:
        case PrimitiveType::OnSurface:
            longer(std::abs(phi(row)), p.type);
            break;
        }
        row += p.rows();
    }
}

std::string lengthText(double metres) {
    return metres < 1.0 ? numberText(metres * 1e3, 3, "mm") : numberText(metres, 3, "m");
}

std::string angleText(double radians) {
    return numberText(radToDeg(radians), 3) + "°";
}

// The part a marker sits on, by name ("part.marker" → "part").
std::string partOfMarker(const Model& model, int marker) {
    const std::string& name = model.markers[static_cast<std::size_t>(marker)].name;
    return name.substr(0, name.find('.'));
}

// The id of the part a marker is on; kNoEntity for the ground.
EntityId partIdOfMarker(const Model& model, int marker) {
    const int body = model.markers[static_cast<std::size_t>(marker)].body;
    return body == kGround ? kNoEntity : model.bodies[static_cast<std::size_t>(body)].id;
}

// The loop closed by `cut`: a shortest path over the other joints from the body of its marker
// I to that of its marker J (the ground one node). Returns the joints along it, in order; empty
// when the joint closes no loop.
std::vector<int> loopThrough(const Model& model, int cut) {
    const int n = model.bodyCount();
    auto node = [&](int marker) {
        const int b = model.markers[static_cast<std::size_t>(marker)].body;
        return b == kGround ? n : b;
    };
    const JointModel& c = model.joints[static_cast<std::size_t>(cut)];
    const int from = node(c.markerI), to = node(c.markerJ);
    if (from == to) return {};
    std::vector<int> via(static_cast<std::size_t>(n + 1), -1);  // the joint that reached a node
    std::vector<bool> seen(static_cast<std::size_t>(n + 1), false);
    std::deque<int> open{from};
    seen[static_cast<std::size_t>(from)] = true;
    while (!open.empty() && !seen[static_cast<std::size_t>(to)]) {
        const int at = open.front();
        open.pop_front();
        for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
            const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
            if (j == cut || joint.rows == 0) continue;
            const int a = node(joint.markerI), b = node(joint.markerJ);
            const int other = a == at ? b : b == at ? a : -1;
            if (other < 0 || seen[static_cast<std::size_t>(other)]) continue;
            seen[static_cast<std::size_t>(other)] = true;
            via[static_cast<std::size_t>(other)] = j;
            open.push_back(other);
        }
    }
    if (!seen[static_cast<std::size_t>(to)]) return {};
    std::vector<int> path;
    for (int at = to; at != from;) {
        const int j = via[static_cast<std::size_t>(at)];
        path.push_back(j);
        const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
        at = node(joint.markerI) == at ? node(joint.markerJ) : node(joint.markerI);
    }
    std::reverse(path.begin(), path.end());
    return path;
}

// Says why the mechanism cannot assemble, from the least-squares pose `q` with joint `cut` (or
// motion `motion`) opened and every other equation held.
std::string explain(const Model& model, AssemblyResult& r, const Equations& eq,
                    const Eigen::VectorXd& phi) {
    if (r.motion >= 0) {
        const DriverModel& d = model.drivers[static_cast<std::size_t>(r.motion)];
        const int row = model.jointRows + r.motion;
        r.gap = std::abs(phi(row));
        r.angular = model.joints[static_cast<std::size_t>(d.joint)]
                        .coordinates[static_cast<std::size_t>(d.coordinate)] == JointAxis::Rotation;
        return "motion '" + d.name + "' cannot be met: with every joint held, joint '" +
               model.joints[static_cast<std::size_t>(d.joint)].name + "' comes no nearer than " +
               (r.angular ? angleText(r.gap) : lengthText(r.gap)) + " to the position it asks for";
    }
    const JointModel& joint = model.joints[static_cast<std::size_t>(r.joint)];
    double length = 0.0, angle = 0.0;
    PrimitiveType kind = PrimitiveType::Coincident;
    jointGaps(model, phi, r.joint, length, angle, &kind);
    r.angular = length <= model.settings.projectionTolerance;
    r.gap = r.angular ? angle : length;

    // The loop: its parts and the joints after each (the cut one last), read from the ground
    // where it passes through it, in the direction of the joint added first.
    const std::vector<int> path = loopThrough(model, r.joint);
    std::vector<std::string> loop;
    std::vector<EntityId> loopIds;  // the same parts by id (kNoEntity: the ground)
    if (!path.empty()) {
        std::vector<int> edges = path;
        edges.push_back(r.joint);
        loop.push_back(partOfMarker(model, joint.markerI));
        loopIds.push_back(partIdOfMarker(model, joint.markerI));
        for (int j : path) {
            const JointModel& along = model.joints[static_cast<std::size_t>(j)];
            const std::string a = partOfMarker(model, along.markerI);
            const bool other = a == loop.back();
            loop.push_back(other ? partOfMarker(model, along.markerJ) : a);
            loopIds.push_back(partIdOfMarker(model, other ? along.markerJ : along.markerI));
        }
        const auto ground = std::find_if(loop.begin(), loop.end(), [&](const std::string& p) {
            for (const MarkerModel& m : model.markers)
                if (m.body == kGround && m.name.rfind(p + ".", 0) == 0) return true;
            return false;
        });
        if (ground != loop.end()) {
            const auto g = ground - loop.begin();
            std::rotate(loop.begin(), ground, loop.end());
            std::rotate(loopIds.begin(), loopIds.begin() + g, loopIds.end());
            std::rotate(edges.begin(), edges.begin() + g, edges.end());
        }
        // edges[k] joins loop[k] and loop[k + 1]; the last joins back to loop[0].
        if (edges.front() > edges.back()) {
            std::reverse(loop.begin() + 1, loop.end());
            std::reverse(loopIds.begin() + 1, loopIds.end());
        }
        r.loopParts = loop;
        for (const EntityId id : loopIds)
            if (id != kNoEntity && std::find(r.status.entities.begin(), r.status.entities.end(),
                                             id) == r.status.entities.end())
                r.status.entities.push_back(id);
    }
    std::string loopText;
    for (const std::string& p : loop) loopText += "'" + p + "' → ";
    if (!loop.empty()) loopText += "'" + loop.front() + "'";

    const std::string partI = partOfMarker(model, joint.markerI);
    const std::string partJ = partOfMarker(model, joint.markerJ);
    std::string text = "joint '" + joint.name + "' cannot close: with every other joint held, ";
    if (r.angular) {
        text += "its axes stay at least " + angleText(r.gap) + " out of line in every position";
        if (!loop.empty()) text += " (the loop " + loopText + " cannot line them up)";
        return text;
    }
    switch (kind) {
    case PrimitiveType::Distance:
        text += "the distance between its markers on '" + partI + "' and '" + partJ +
                "' stays at least " + lengthText(r.gap) +
                " from the one it holds in every position";
        break;
    case PrimitiveType::Dot2:
        text += "its marker on '" + partJ + "' stays at least " + lengthText(r.gap) +
                " from the plane or line of '" + partI + "' in every position";
        break;
    case PrimitiveType::OnCurve:
        text += "its marker on '" + partI + "' stays at least " + lengthText(r.gap) +
                " from the curve of '" + partJ + "' in every position";
        break;
    case PrimitiveType::OnSurface:
        text += "its marker on '" + partI + "' stays at least " + lengthText(r.gap) +
                " from the surface of '" + partJ + "' in every position";
        break;
    case PrimitiveType::CamContact:
        text += "the follower's contour on '" + partI + "' stays at least " + lengthText(r.gap) +
                " from the cam's on '" + partJ + "' in every position";
        break;
    default:
        text += "its markers on '" + partI + "' and '" + partJ + "' stay at least " +
                lengthText(r.gap) + " apart in every position";
        break;
    }
    if (angle > 1e-6) text += " (and its axes " + angleText(angle) + " out of line)";
    if (loop.empty()) return text;
    if (kind != PrimitiveType::Coincident) return text + " (the loop " + loopText + ")";
    // Stretched towards the gap on both sides: too short; overshooting on one: too long.
    // Each side's reach is measured from the joint before it on the loop (eq.frames hold the
    // pose of phi).
    const Vec3 pI = markerFrame(model, eq.frames, joint.markerI).p;
    const Vec3 pJ = markerFrame(model, eq.frames, joint.markerJ).p;
    if ((pJ - pI).norm() <= 0.0) return text + " (the loop " + loopText + ")";
    const Vec3 u = (pJ - pI).normalized();
    auto reach = [&](int marker, int neighbour, const Vec3& tip, const Vec3& towards) {
        const int body = model.markers[static_cast<std::size_t>(marker)].body;
        if (body == kGround) return 0.0;
        const JointModel& n = model.joints[static_cast<std::size_t>(neighbour)];
        const int m =
            model.markers[static_cast<std::size_t>(n.markerI)].body == body ? n.markerI : n.markerJ;
        return (tip - markerFrame(model, eq.frames, m).p).dot(towards);
    };
    const double sI = reach(joint.markerI, path.front(), pI, u);
    const double sJ = reach(joint.markerJ, path.back(), pJ, -u);
    const bool tooShort = sI >= -1e-9 && sJ >= -1e-9;
    text += ": the loop " + loopText + " is " + lengthText(r.gap) +
            (tooShort ? " too short to close (at full stretch '" + partI + "' cannot reach '" +
                            partJ + "')"
                      : " too long to close ('" + partI + "' and '" + partJ +
                            "' overshoot each other however the loop folds)");
    return text;
}

// Newton failed from the start: the nearest pose by least squares, assembled from there when it
// closes every equation, else the explanation of what cannot close.
void diagnose(const Model& model, const State& start, AssemblyResult& r, const Status& failure) {
    r.status = failure;
    r.status.message = "the mechanism cannot be assembled: " + failure.message;
    r.status.cause = Cause::CannotAssemble;
    r.state = start;  // unless a nearer pose is found below
    if (model.velocitySize() > kLargestDiagnosis || model.constraintRows() == 0) return;
    Equations eq{model, {}, {}};
    const double t = start.t;
    Eigen::VectorXd q = start.q;
    normaliseQuaternions(model, q);
    Eigen::VectorXd phi;
    eq.at(t, q, phi, nullptr);
    if (!phi.allFinite()) return;  // the projection's message names the row
    Eigen::VectorXd D = massDiagonal(model);
    Eigen::VectorXd w = Eigen::VectorXd::Ones(phi.size());
    const Eigen::VectorXd placed = q;
    leastSquares(eq, t, q, w, D, kLeastSquaresIterations);
    eq.at(t, q, phi, nullptr);
    if (!phi.allFinite()) return;
    // Masses and inertias many orders of magnitude apart (a part of 1e-30 kg, moments of
    // 1e-300) leave the steps damped in their metric unable to close what closes: such a loop
    // was reported "too short by 6e-8 m". The gaps are then judged with parts of unit mass and
    // moments L² (L the mechanism's size) instead, which only the geometry can keep open.
    if (phi.cwiseAbs().maxCoeff() > model.settings.projectionTolerance &&
        D.maxCoeff() > 1e8 * D.minCoeff()) {
        D = unitPartMetric(model);
        q = placed;
        leastSquares(eq, t, q, w, D, kLeastSquaresIterations);
        eq.at(t, q, phi, nullptr);
        if (!phi.allFinite()) return;
    }

    auto projected = [&](const Eigen::VectorXd& from) {
        State s = start;
        s.q = from;
        Workspace ws;
        if (!prepareWorkspace(model, s, ws).ok || !projectState(model, s, ws).ok) return false;
        r.state = s;
        r.status = {};
        return true;
    };
    if (phi.cwiseAbs().maxCoeff() <= model.settings.projectionTolerance && projected(q)) return;

    // What is open at the least-squares pose: the loop's joints (and a motion that asks for
    // what the loop cannot reach) share the gap.
    std::vector<double> gaps(model.joints.size(), 0.0);
    double largest = 0.0;
    for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
        double length = 0.0, angle = 0.0;
        jointGaps(model, phi, j, length, angle);
        gaps[static_cast<std::size_t>(j)] = std::max(length, angle);
        largest = std::max(largest, gaps[static_cast<std::size_t>(j)]);
    }
    for (int d = 0; d < static_cast<int>(model.drivers.size()); ++d)
        largest = std::max(largest, std::abs(phi(model.jointRows + d)));
    const double open = std::max(1e-9, 1e-3 * largest);
    const Eigen::VectorXd shared = q;
    // Every joint closed there, as far as the penalty holds them (to ~10⁻⁸ of the gap).
    auto joints = [&](const Eigen::VectorXd& at) {
        Eigen::VectorXd p;
        eq.at(t, at, p, nullptr);
        return model.jointRows == 0 ||
               p.head(model.jointRows).cwiseAbs().maxCoeff() <=
                   std::max(model.settings.projectionTolerance, 1e-6 * largest);
    };
    // One equation cut, every other held (a weight of 10⁴), from the shared pose.
    auto cut = [&](int first, int rows) {
        q = shared;
        w.setConstant(kHeld);
        w.segment(first, rows).setOnes();
        leastSquares(eq, t, q, w, D, kLeastSquaresIterations);
    };
    // A motion the loop cannot follow: with it cut, every joint closes.
    for (int d = static_cast<int>(model.drivers.size()) - 1; d >= 0 && r.motion < 0; --d) {
        if (!(std::abs(phi(model.jointRows + d)) > open)) continue;
        cut(model.jointRows + d, 1);
        if (joints(q)) r.motion = d;
    }
    // Else the joint the loop was closed with (the last open one in the scene).
    if (r.motion < 0) {
        for (int j = 0; j < static_cast<int>(model.joints.size()); ++j)
            if (gaps[static_cast<std::size_t>(j)] > open) r.joint = j;
        if (r.joint < 0) {
            r.state.q = shared;
            return;
        }
        cut(model.jointRowOffset[static_cast<std::size_t>(r.joint)],
            model.joints[static_cast<std::size_t>(r.joint)].rows);
    }
    eq.at(t, q, phi, nullptr);
    if (!phi.allFinite()) return;
    if (phi.cwiseAbs().maxCoeff() <= model.settings.projectionTolerance && projected(q)) {
        r.joint = r.motion = -1;
        return;
    }
    r.state.q = q;
    // What cannot close first, then the parts of its loop (explain() adds them).
    r.status.cause = Cause::LoopCannotClose;
    r.status.entities = {r.motion >= 0 ? model.drivers[static_cast<std::size_t>(r.motion)].id
                                       : model.joints[static_cast<std::size_t>(r.joint)].id};
    r.status.message = "the mechanism cannot be assembled: " + explain(model, r, eq, phi);
}

}  // namespace

Eigen::VectorXd displacement(const Model& model, const Eigen::VectorXd& from,
                             const Eigen::VectorXd& to) {
    Eigen::VectorXd d(model.velocitySize());
    for (int b = 0; b < model.bodyCount(); ++b) {
        layout::linear(d, b) = bodyPosition(to, b) - bodyPosition(from, b);
        const Eigen::AngleAxisd turn(bodyOrientation(from, b).conjugate() * bodyOrientation(to, b));
        layout::angular(d, b) = turn.angle() * turn.axis();
    }
    return d;
}

std::vector<JointGap> jointGapsAt(const Model& model, const State& state) {
    Equations eq{model, {}, {}};
    Eigen::VectorXd q = state.q;
    normaliseQuaternions(model, q);
    Eigen::VectorXd phi;
    eq.at(state.t, q, phi, nullptr);
    std::vector<JointGap> gaps(model.joints.size());
    for (int j = 0; j < static_cast<int>(model.joints.size()); ++j)
        jointGaps(model, phi, j, gaps[static_cast<std::size_t>(j)].length,
                  gaps[static_cast<std::size_t>(j)].angle);
    return gaps;
}

Eigen::VectorXd unitPartMetric(const Model& model, double* size2) {
    double L2 = 0.0;
    for (const MarkerModel& m : model.markers)
        if (m.body != kGround) L2 = std::max(L2, m.X_BM.p.squaredNorm());
    if (!(L2 > 0.0)) L2 = 1.0;
    if (size2) *size2 = L2;
    Eigen::VectorXd d(model.velocitySize());
    for (int b = 0; b < model.bodyCount(); ++b) {
        layout::linear(d, b).setOnes();
        layout::angular(d, b).setConstant(L2);
    }
    return d;
}

Model holdingStops(const Model& model, const std::vector<HeldStop>& held) {
    Model out = model;
    out.serial = newModelSerial();
    for (const HeldStop& stop : held) {
        const LimitModel& limit = model.limits[static_cast<std::size_t>(stop.limit)];
        const JointModel& joint = model.joints[static_cast<std::size_t>(limit.joint)];
        DriverModel d;
        d.id = joint.id;
        d.name = joint.name + (stop.side > 0.0 ? " lower stop" : " upper stop");
        d.joint = limit.joint;
        d.coordinate = limit.coordinate;
        d.level = MotionLevel::Position;
        d.f = Expression::constant(stop.side > 0.0 ? limit.lower : limit.upper);
        out.drivers.push_back(std::move(d));
    }
    return out;
}

std::vector<HeldStop> stopsPassed(const Model& model, const State& state, double slack,
                                  const std::vector<HeldStop>& held) {
    std::vector<HeldStop> out;
    for (int l = 0; l < static_cast<int>(model.limits.size()); ++l) {
        const LimitModel& limit = model.limits[static_cast<std::size_t>(l)];
        if (state.jointCoordinates.size() <= limit.slot) continue;
        const double c = state.jointCoordinates(limit.slot);
        for (const double side : {1.0, -1.0}) {
            const double end = side > 0.0 ? limit.lower : limit.upper;
            const HeldStop stop{l, side};
            if (side * (c - end) < -slack &&
                std::find(held.begin(), held.end(), stop) == held.end())
                out.push_back(stop);
        }
    }
    return out;
}

namespace {

AssemblyResult assembleWithoutStops(const Model& model, const State& start);

}  // namespace

AssemblyResult assembleMechanism(const Model& model, const State& start) {
    AssemblyResult r = assembleWithoutStops(model, start);
    if (model.limits.empty() || !r.status.ok) return r;
    // Each round holds the stop the last pose passed farthest (a stop once held stays held: the
    // nearest pose within the stops touches it); one at a time, since holding one often brings
    // others back within theirs (and holding them all at once can over-constrain a loop).
    std::vector<HeldStop> held;
    const double slack = model.settings.projectionTolerance;
    for (std::size_t round = 0; round < 2 * model.limits.size(); ++round) {
        const std::vector<HeldStop> passed = stopsPassed(model, r.state, slack, held);
        if (passed.empty()) return r;
        auto beyond = [&](const HeldStop& stop) {
            const LimitModel& limit = model.limits[static_cast<std::size_t>(stop.limit)];
            const double c = r.state.jointCoordinates(limit.slot);
            return stop.side > 0.0 ? limit.lower - c : c - limit.upper;
        };
        held.push_back(*std::max_element(
            passed.begin(), passed.end(),
            [&](const HeldStop& a, const HeldStop& b) { return beyond(a) < beyond(b); }));
        AssemblyResult within = assembleWithoutStops(holdingStops(model, held), start);
        if (!within.status.ok) {
            within.status =
                Status::failure("the mechanism cannot be assembled within its joints' end stops: " +
                                    within.status.message,
                                within.status.entities, Cause::CannotAssemble);
            within.motion = -1;  // (a stop held, not one of the scene's motions)
            return within;
        }
        r = std::move(within);
    }
    return r;
}

namespace {

AssemblyResult assembleWithoutStops(const Model& model, const State& start) {
    AssemblyResult r;
    r.state = start;
    normaliseQuaternions(model, r.state.q);
    unstickParallelAxes(model, r.state);
    const State from = r.state;
    Workspace ws;
    if (Status s = prepareWorkspace(model, r.state, ws); !s.ok) {
        r.status = Status::failure("the mechanism cannot be assembled: " + s.message, s.entities,
                                   Cause::CannotAssemble);
        r.state = from;
        return r;
    }
    if (Status s = projectState(model, r.state, ws, &r.newtonIterations); !s.ok) {
        if (s.cause == Cause::NotFinite) {
            r.status = Status::failure("the mechanism cannot be assembled: " + s.message,
                                       s.entities, Cause::CannotAssemble);
            r.state = from;
            return r;
        }
        diagnose(model, from, r, s);
        return r;
    }
    if (r.newtonIterations == 0) return r;  // assembled as placed: nothing moves

    // Slide along the constraint manifold to the stationary pose: SQP steps (above), each
    // shortened until the pose it projects to is nearer stationary (the manifold's curvature
    // makes a full step overshoot where a light part swings far for little mass-metric motion).
    const State projected = r.state;
    Eigen::VectorXd x, step, trialStep;
    auto sqpStep = [&](const State& s, Eigen::VectorXd& out, double& size) {
        const Eigen::VectorXd delta = displacement(model, from.q, s.q);
        if (!factorizeConstraints(model, s.t, s.q, s.v, ws, false).ok) return false;
        const ConstraintEvaluation& c = ws.constraints;
        ws.solver.project(c.Phi - c.Phi_q * delta, x);
        out = x - delta;
        // Relative to Δ: stationary to round-off when ~1e-13 of it.
        size = out.cwiseAbs().maxCoeff() / (1.0 + delta.cwiseAbs().maxCoeff());
        return out.allFinite();
    };
    double size = 0.0, trialSize = 0.0, alpha = 1.0;
    bool moving = sqpStep(r.state, step, size);
    for (int k = 0; moving && k < 100 && size > 1e-13; ++k) {
        State trial = r.state;
        bool better = false;
        for (alpha = std::min(1.0, 2.0 * alpha); alpha > 1e-4; alpha *= 0.5) {
            trial.q = r.state.q;
            retract(model, trial.q, alpha * step);
            ws.factored = false;
            better = projectState(model, trial, ws, nullptr, kClosed).ok &&
                     sqpStep(trial, trialStep, trialSize) && trialSize < size;
            if (better) break;
        }
        moving = better;
        if (!better) break;
        r.state = trial;
        step.swap(trialStep);
        size = trialSize;
    }
    ws.factored = false;
    if (!projectState(model, r.state, ws, nullptr, kClosed).ok) r.state = projected;
    return r;
}

}  // namespace

SceneAssembly assembleScene(SceneSpec& spec) {
    SceneAssembly out;
    CompileResult compiled = compile(spec);
    out.diagnostics = std::move(compiled.diagnostics);
    out.model = std::move(compiled.model);
    if (!out.model) {
        std::string why = "the scene does not compile";
        for (const Diagnostic& d : out.diagnostics)
            if (d.severity == Severity::Error) {
                why = d.message;
                break;
            }
        out.result.status = Status::failure(why);
        return out;
    }
    out.result = assembleMechanism(*out.model, initialState(*out.model));
    if (!out.result.status.ok) return out;
    const std::vector<Transform> poses = partPoses(*out.model, out.result.state);
    for (std::size_t p = 0; p < spec.parts.size() && p < poses.size(); ++p) {
        if (spec.parts[p].ground) continue;
        out.moved = std::max(out.moved, (poses[p].p - spec.parts[p].X_WP.p).norm());
        out.turned = std::max(out.turned, spec.parts[p].X_WP.R.angularDistance(poses[p].R));
    }
    spec.placeParts(poses);
    return out;
}

}  // namespace engine
