#include "engine/forces/forces.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/state_measures.h"
#include "engine/math/cable_path.h"
#include "engine/math/dual.h"
#include "engine/math/finite.h"
#include "engine/math/jet.h"
#include "engine/math/number_text.h"
#include "engine/math/table_curve.h"
#include "engine/model/diagnostic.h"
#include "engine/model/layout.h"
#include "engine/model/model.h"
#include "engine/solver/worker_pool.h"

namespace engine {
namespace {

template <class S>
using Vec3Of = Eigen::Matrix<S, 3, 1>;
template <class S>
using Mat3Of = Eigen::Matrix<S, 3, 3>;
template <class S>
using VectorOf = Eigen::Matrix<S, Eigen::Dynamic, 1>;

// Adds a force F (world) acting at world point p on body b, and a torque T (world).
template <class S>
void addWrench(const std::vector<BodyFrameOf<S>>& frames, int body, const Vec3Of<S>& p,
               const Vec3Of<S>& F, const Vec3Of<S>& T, VectorOf<S>& g) {
    if (body == kGround) return;
    const BodyFrameOf<S>& f = frames[static_cast<std::size_t>(body)];
    layout::linear(g, body) += F;
    layout::angular(g, body) += f.R.transpose() * (T + (p - f.r).cross(F));
}

// Small-angle rotation vector of frame I relative to frame J, in J's axes: the axis-angle of
// R_JI = R_WJᵀ R_WI (exact for any angle below π).
Vec3 rotationVector(const Mat3& R_WJ, const Mat3& R_WI) {
    const Eigen::AngleAxisd aa(Mat3(R_WJ.transpose() * R_WI));
    return aa.angle() * aa.axis();
}
// The same on dual numbers: θ a from sin θ a = vee(R − Rᵀ)/2 and cos θ = (tr R − 1)/2 (the
// value Eigen's; the tangent exact below π).
Vec3Of<Dual> rotationVector(const Mat3Of<Dual>& R_WJ, const Mat3Of<Dual>& R_WI) {
    const Mat3Of<Dual> R = R_WJ.transpose() * R_WI;
    const Vec3Of<Dual> s(0.5 * (R(2, 1) - R(1, 2)), 0.5 * (R(0, 2) - R(2, 0)),
                         0.5 * (R(1, 0) - R(0, 1)));
    const Dual sine2 = s.squaredNorm();
    if (sine2.a < 1e-20) return s;  // θ/sin θ = 1 + O(θ²)
    const Dual sine = sqrt(sine2);
    const Dual angle = atan2(sine, 0.5 * (R(0, 0) + R(1, 1) + R(2, 2) - 1.0));
    return s * (angle / sine);
}

template <class S>
S normOf(const Vec3Of<S>& x) {
    using std::sqrt;
    return sqrt(x.squaredNorm());
}

// A spring's elastic force at deflection x: its table's law, or k x; the energy stored, ∫₀ˣ.
template <class S>
S elasticForce(const TableCurve* law, double k, const S& x) {
    return law ? (*law)(x) : k * x;
}
double elasticEnergy(const TableCurve* law, double k, double x) {
    return law ? law->integral(0.0, x) : 0.5 * k * x * x;
}
// Its damping force at rate v: its table's law, or c v.
template <class S>
S dampingForce(const TableCurve* law, double c, const S& v) {
    return law ? (*law)(v) : c * v;
}

// A spring's or rotational spring's state: its length (angle, unwound from the last known
// coordinates), the rate of it, and the force (torque) it makes, tension positive (a rotational
// spring's torque resisting a positive twist positive), with its damping part and the energy it
// stores; `u` the unit vector from I to J (a spring of no length has none: not `directed`).
template <class S>
struct SpringStateOf {
    S length = S(0.0), rate = S(0.0), force = S(0.0), damping = S(0.0);
    double energy = 0.0;
    Vec3Of<S> u = Vec3Of<S>::Zero();
    bool directed = true;
    // A cable's straight pieces, each with its span's tension, the markers they run between
    // (I, the via points, J: its anchors), and its damping's power (its spans').
    std::vector<CablePieceOf<S>> pieces;
    std::vector<S> pieceForce;
    std::vector<int> anchors;
    double dampingPower = 0.0;
    // Per span its tension; per anchor the span that ends at it where the cable is cut there
    // (−1 elsewhere), its wrap in angle, and a pulley with friction's slip [m] (the stored one
    // where the cable grips it, the one found where it slips).
    std::vector<double> spanTension, wrapAngle, slip;
    std::vector<int> spanBefore;
    // Per piece its span; per span its length.
    std::vector<int> pieceSpan;
    std::vector<double> spanLength;
};

// A span's elastic tension (the cable's law on its strain, `scale` its share's inverse) at
// length l: a rope's never below 0.
template <class T>
T spanElastic(const ForceModel& force, const T& length, double scale) {
    const T stretch = scale * length - force.freeLength;
    if (force.slack && valueOf(stretch) <= 0.0) return T(0.0);
    const T t = elasticForce(force.elasticLaw.get(), force.stiffness, stretch) + force.preload;
    return force.slack && valueOf(t) < 0.0 ? T(0.0) : t;
}

// The markers a cable passes, from I to J.
std::vector<int> cablePoints(const ForceModel& force) {
    std::vector<int> out{force.markerI};
    out.insert(out.end(), force.via.begin(), force.via.end());
    out.push_back(force.markerJ);
    return out;
}

// The path through `anchors` (their values), remembered per thread for the last anchors seen
// of each cable: a Jacobian evaluates the element along every direction at one state, and the
// path is where it is whatever the direction (its tangents come from cablePath).
const CableContacts& solvedPath(const ForceModel& force, const std::vector<CableAnchor>& anchors) {
    struct Last {
        const ForceModel* force = nullptr;
        std::vector<CableAnchor> anchors;
        CableContacts solved;
    };
    thread_local std::array<Last, 4> last;
    thread_local std::size_t next = 0;
    auto same = [&](const std::vector<CableAnchor>& a) {
        if (a.size() != anchors.size()) return false;
        for (std::size_t k = 0; k < a.size(); ++k)
            if (a[k].p != anchors[k].p || a[k].R != anchors[k].R ||
                a[k].radius != anchors[k].radius || a[k].sense != anchors[k].sense ||
                a[k].liftsOff != anchors[k].liftsOff)
                return false;
        return true;
    };
    for (const Last& l : last)
        if (l.force == &force && same(l.anchors)) return l.solved;
    Last& slot = last[next];
    next = (next + 1) % last.size();
    slot.force = &force;
    slot.anchors = anchors;
    slot.solved = solveCablePath(anchors);
    return slot.solved;
}

// The angle `wrapped` with the whole turns that bring it nearest `reference` (unwindAngle()).
double unwoundNear(double wrapped, double reference) {
    return wrapped + 2.0 * kPi * std::round((reference - wrapped) / (2.0 * kPi));
}

template <class S>
SpringStateOf<S> springState(const Model& model, const ForceModel& force,
                             const std::vector<BodyFrameOf<S>>& frames,
                             const Eigen::VectorXd& jointCoordinates,
                             const std::vector<int>& offsets) {
    SpringStateOf<S> k;
    if (force.type == ForceType::Cable) {
        // Its path through its anchors and round its pulleys (engine/math/cable_path.h).
        k.anchors = cablePoints(force);
        const std::size_t n = k.anchors.size();
        std::vector<MarkerFrameOf<S>> marks(n);
        std::vector<CableAnchorOf<S>> anchors(n);
        std::vector<CableAnchor> values(n);
        for (std::size_t a = 0; a < n; ++a) {
            marks[a] = markerFrame(model, frames, k.anchors[a]);
            anchors[a].R = marks[a].R;
            anchors[a].p = marks[a].p;
            if (a > 0 && a + 1 < n) {
                const ForceModel::Wrap& w = force.wraps[a - 1];
                anchors[a].radius = w.radius;
                anchors[a].sense = w.sense;
                anchors[a].liftsOff = !w.cuts();
            }
            values[a].R = marks[a].R.unaryExpr([](const S& x) { return valueOf(x); });
            values[a].p = marks[a].p.unaryExpr([](const S& x) { return valueOf(x); });
            values[a].radius = anchors[a].radius;
            values[a].sense = anchors[a].sense;
            values[a].liftsOff = anchors[a].liftsOff;
        }
        const CableContacts& solved = solvedPath(force, values);
        const CablePathOf<S> path = cablePath(anchors, solved);
        // Cut at the turning pulleys, where the cable is fixed on them: their path angles are
        // off by the whole turns the pulley made, which its joint's unwound angle tells.
        std::vector<double> cut(n, std::numeric_limits<double>::quiet_NaN());
        for (std::size_t a = 1; a + 1 < n; ++a) {
            const ForceModel::Wrap& w = force.wraps[a - 1];
            if (!w.cuts() || solved.slot[a] < 0) continue;
            const double middle = 0.5 * (valueOf(path.phiIn[a]) + valueOf(path.phiOut[a]));
            if (w.joint < 0) {
                // A pulley with friction, fixed on its part: the cut where the cable was fixed
                // on it, moved along the wrap by what has slipped.
                cut[a] = unwoundNear(w.material, middle) + w.sense * w.slip / w.radius;
                continue;
            }
            const double wrapped = valueOf(jointCoordinateMotion(model, frames, w.joint, 0).value);
            const double angle =
                jointCoordinates.size() > 0
                    ? unwoundNear(wrapped,
                                  jointCoordinates(offsets[static_cast<std::size_t>(w.joint)]))
                    : wrapped;
            // The wrap's middle in the joint's other part's frame (a carrier's angle, which
            // does not wind up: taken nearest the initial one) and so in the pulley's, unwound.
            const double expected =
                unwoundNear(middle + w.turning * angle, w.carrier) - w.turning * angle;
            cut[a] = w.material - 2.0 * kPi * std::round((expected - middle) / (2.0 * kPi));
        }
        CableSpansOf<S> spans = cableSpans(anchors, path, cut);
        // Each span's rate: its pieces' ends' speeds apart, the ends carried by their parts.
        std::vector<S> rates(spans.length.size(), S(0.0));
        for (std::size_t i = 0; i < path.pieces.size(); ++i) {
            const CablePieceOf<S>& piece = path.pieces[i];
            const MarkerFrameOf<S>& from = marks[static_cast<std::size_t>(piece.from)];
            const MarkerFrameOf<S>& to = marks[static_cast<std::size_t>(piece.to)];
            const Vec3Of<S> va = from.v + from.w.cross(Vec3Of<S>(piece.a - from.p));
            const Vec3Of<S> vb = to.v + to.w.cross(Vec3Of<S>(piece.b - to.p));
            rates[static_cast<std::size_t>(spans.pieceSpan[i])] += (vb - va).dot(piece.u);
        }
        // The span that ends at each anchor where the cable is cut there.
        k.spanBefore.assign(n, -1);
        for (std::size_t i = 0; i < path.pieces.size(); ++i) {
            const auto to = static_cast<std::size_t>(path.pieces[i].to);
            if (to + 1 < n && !std::isnan(cut[to])) k.spanBefore[to] = spans.pieceSpan[i];
        }
        // A pulley with friction the cable slips over: the junction where the side pulling
        // harder pulls e^{μθ} times the other (the capstan; a massless cable), found along the
        // wrap from the stored slip, its tangent by one Newton step on dual numbers; the spans'
        // rates with the slip's (held by the balance), and the friction's power.
        k.slip.assign(n, 0.0);
        std::vector<S> slipRate(n, S(0.0));
        for (std::size_t a = 1; a + 1 < n; ++a) {
            const ForceModel::Wrap& w = force.wraps[a - 1];
            if (w.friction <= 0.0) continue;
            k.slip[a] = w.slip;
            const int before = k.spanBefore[a];
            if (w.slipping == 0 || before < 0 ||
                before + 1 >= static_cast<int>(spans.length.size()))
                continue;
            const auto I = static_cast<std::size_t>(before), J = I + 1;
            const double sI = I < force.spanScale.size() ? force.spanScale[I] : 1.0;
            const double sJ = J < force.spanScale.size() ? force.spanScale[J] : 1.0;
            const S theta = anchors[a].sense * (path.phiOut[a] - path.phiIn[a]);
            using std::exp;
            const S grip = exp(w.friction * theta);
            const double arc = w.radius * valueOf(theta);
            const double share = arc > 1e-12 ? valueOf(path.wrapped[a]) / arc : 1.0;
            const double direction = w.slipping > 0 ? 1.0 : -1.0;
            // The side it slips toward pulls e^{μθ} times the other: zero at the junction.
            auto excess = [&](const auto& lI, const auto& lJ, const auto& g, const auto& d) {
                const auto tI = spanElastic(force, decltype(d)(lI + d * share), sI);
                const auto tJ = spanElastic(force, decltype(d)(lJ - d * share), sJ);
                return direction > 0.0 ? decltype(d)(tJ - g * tI) : decltype(d)(tI - g * tJ);
            };
            const double lI = valueOf(spans.length[I]), lJ = valueOf(spans.length[J]),
                         g = valueOf(grip);
            // (not increasing along the slip, flat where both spans are slack: bracketed, then
            // bisected to the root nearest the stored slip, so that a slack rope slides nowhere)
            auto at = [&](double d) { return direction * excess(lI, lJ, g, d); };
            double low = 0.0, high = 0.0, step = 1e-9 * (1.0 + lI + lJ);
            const double start = at(0.0);
            if (start > 0.0) {
                // at(low) > 0 ≥ at(high): the plateau's near end
                for (int m = 0; m < 200 && at(high) > 0.0; ++m, step *= 2.0)
                    low = high, high += step;
                for (int m = 0; m < 200 && high - low > 1e-15 * (1.0 + std::abs(high)); ++m) {
                    const double middle = 0.5 * (low + high);
                    (at(middle) > 0.0 ? low : high) = middle;
                }
            } else if (start < 0.0) {
                // at(low) ≥ 0 > at(high)
                for (int m = 0; m < 200 && at(low) < 0.0; ++m, step *= 2.0) high = low, low -= step;
                for (int m = 0; m < 200 && high - low > 1e-15 * (1.0 + std::abs(high)); ++m) {
                    const double middle = 0.5 * (low + high);
                    (at(middle) < 0.0 ? high : low) = middle;
                }
            }
            const double d = 0.5 * (low + high);
            const double slope = excess(Dual(lI), Dual(lJ), Dual(g), Dual(d, 1.0)).b;
            if (!(std::abs(slope) > 0.0)) {
                // Both spans slack at the junction: the cable slides freely, its slip there.
                spans.length[I] += d * share;
                spans.length[J] -= d * share;
                k.slip[a] = w.slip + d;
                continue;
            }
            const S moved = S(d) - excess(spans.length[I], spans.length[J], grip, S(d)) / slope;
            spans.length[I] += moved * share;
            spans.length[J] -= moved * share;
            const double byI = excess(Dual(lI, 1.0), Dual(lJ), Dual(g), Dual(d)).b;
            const double byJ = excess(Dual(lI), Dual(lJ, 1.0), Dual(g), Dual(d)).b;
            slipRate[a] = -(byI * rates[I] + byJ * rates[J]) / slope;
            rates[I] += slipRate[a] * share;
            rates[J] -= slipRate[a] * share;
            k.slip[a] = w.slip + d;
        }
        // Each span's tension: the cable's law on its strain; a rope's never below 0, what the
        // damping would take it below left out (so the damping's power is the tension's beyond
        // the elastic part).
        k.length = path.length;
        k.directed = valueOf(k.length) >= 1e-12;
        std::vector<S> tension(spans.length.size(), S(0.0));
        for (std::size_t i = 0; i < spans.length.size(); ++i) {
            const double scale = i < force.spanScale.size() ? force.spanScale[i] : 1.0;
            k.rate += rates[i];
            const S stretch = scale * spans.length[i] - force.freeLength;
            if (force.slack && valueOf(stretch) <= 0.0) continue;  // slack: no tension at all
            const S elastic =
                elasticForce(force.elasticLaw.get(), force.stiffness, stretch) + force.preload;
            S t =
                elastic + dampingForce(force.dampingLaw.get(), force.damping, S(scale * rates[i]));
            if (force.slack && valueOf(t) < 0.0) t = S(0.0);
            tension[i] = t;
            k.dampingPower += valueOf((t - elastic) * rates[i]);
            k.energy += (elasticEnergy(force.elasticLaw.get(), force.stiffness, valueOf(stretch)) +
                         force.preload * valueOf(stretch)) /
                        scale;
            if (valueOf(t) > valueOf(k.force)) k.force = t;
        }
        // The friction's power where the cable slips: the tensions' difference times the slip's
        // rate (what the elastic energy and the parts do not account for).
        for (std::size_t a = 1; a + 1 < n; ++a)
            if (valueOf(slipRate[a]) != 0.0) {
                const auto I = static_cast<std::size_t>(k.spanBefore[a]);
                k.dampingPower += valueOf((tension[I + 1] - tension[I]) * slipRate[a]);
            }
        for (std::size_t i = 0; i < path.pieces.size(); ++i)
            k.pieceForce.push_back(tension[static_cast<std::size_t>(spans.pieceSpan[i])]);
        k.pieces = path.pieces;
        for (const S& t : tension) k.spanTension.push_back(valueOf(t));
        k.pieceSpan = spans.pieceSpan;
        for (const S& l : spans.length) k.spanLength.push_back(valueOf(l));
        k.wrapAngle.assign(n, 0.0);
        for (std::size_t a = 1; a + 1 < n; ++a)
            k.wrapAngle[a] = anchors[a].sense * valueOf(path.phiOut[a] - path.phiIn[a]);
        return k;
    }
    if (force.type == ForceType::SpringDamper) {
        const MarkerFrameOf<S> mi = markerFrame(model, frames, force.markerI);
        const MarkerFrameOf<S> mj = markerFrame(model, frames, force.markerJ);
        const Vec3Of<S> d = mj.p - mi.p;
        k.length = normOf(d);
        if (valueOf(k.length) < 1e-12) {
            k.directed = false;
            return k;
        }
        k.u = d / k.length;
        k.rate = (mj.v - mi.v).dot(k.u);
    } else {
        const CoordinateMotion<S> c = jointCoordinateMotion(model, frames, force.joint, 0);
        const double wrapped = valueOf(c.value);
        const double reference =
            jointCoordinates.size() > 0
                ? jointCoordinates(offsets[static_cast<std::size_t>(force.joint)])
                : 0.0;
        k.length = c.value + (unwoundNear(wrapped, reference) - wrapped);  // whole turns
        k.rate = c.rate;
    }
    const S stretch = k.length - force.freeLength;
    k.damping = dampingForce(force.dampingLaw.get(), force.damping, k.rate);
    k.force =
        elasticForce(force.elasticLaw.get(), force.stiffness, stretch) + k.damping + force.preload;
    k.energy = elasticEnergy(force.elasticLaw.get(), force.stiffness, valueOf(stretch)) +
               force.preload * valueOf(stretch);
    return k;
}

bool usesState(const ForceModel& force) {
    return !force.inputs[0].empty() || !force.inputs[1].empty() || !force.inputs[2].empty();
}

// A force or torque `effort` on a joint's coordinate: about (along) J's z axis on I, its
// opposite on J (a force at I's origin on both, so the pair has no moment).
template <class S>
void addJointEffort(const Model& model, const ForceModel& force,
                    const std::vector<BodyFrameOf<S>>& frames, const S& effort, VectorOf<S>& g) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
    const MarkerFrameOf<S> mi = markerFrame(model, frames, joint.markerI);
    const MarkerFrameOf<S> mj = markerFrame(model, frames, joint.markerJ);
    const Vec3Of<S> axis = mj.R.col(2);
    const Vec3Of<S> zero = Vec3Of<S>::Zero();
    const int bodyI = model.markers[static_cast<std::size_t>(joint.markerI)].body;
    const int bodyJ = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
    if (joint.coordinates[static_cast<std::size_t>(force.coordinate)] == JointAxis::Rotation) {
        addWrench<S>(frames, bodyI, mi.p, zero, effort * axis, g);
        addWrench<S>(frames, bodyJ, mj.p, zero, -effort * axis, g);
    } else {
        addWrench<S>(frames, bodyI, mi.p, effort * axis, zero, g);
        addWrench<S>(frames, bodyJ, mi.p, -effort * axis, zero, g);
    }
}

// A target's value and its time rate with the state's values (the state held in the rate).
void targetOf(const ForceModel& force, double t, const std::vector<double>& in,
              const std::vector<double>&, double& goal, double& goalRate) {
    const Expression& target = force.components[0];
    goal = target.eval(t, in.data());
    goalRate = target.derivative(t, in.data());
}
void targetOf(const ForceModel& force, double t, const std::vector<double>& in,
              const std::vector<double>& along, Dual& goal, Dual& goalRate) {
    const Expression& target = force.components[0];
    goal = Dual(target.eval(t, in.data()), target.inputTangent(t, in.data(), along.data()));
    goalRate =
        Dual(target.derivative(t, in.data()), target.derivativeTangent(t, in.data(), along.data()));
}

// controllerEffort() on frames of S, its coordinate's rate to `rate`.
template <class S>
S effortOf(const Model& model, const ForceModel& force, double t,
           const std::vector<BodyFrameOf<S>>& frames, double lastValue, S& rate,
           const std::vector<S>* stateValues) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
    const CoordinateMotion<S> c =
        jointCoordinateMotion(model, frames, force.joint, force.coordinate);
    rate = c.rate;
    if (!force.on) return S(0.0);  // switched off
    S q = c.value;
    if (joint.coordinates[static_cast<std::size_t>(force.coordinate)] == JointAxis::Rotation) {
        const double wrapped = valueOf(c.value);  // unwindAngle(): whole turns, a constant
        q = c.value + 2.0 * kPi * std::round((lastValue - wrapped) / (2.0 * kPi));
    }
    const Expression& target = force.components[0];
    S goal = S(0.0), goalRate = S(0.0);
    if (force.inputs[0].empty()) {
        goal = S(target.eval(t));
        goalRate = S(target.derivative(t));
    } else {
        // A target that reads the state: its rate is its partial in time, the state held.
        std::vector<S> own;
        if (!stateValues) {
            // Without the state's memory: q unwound from nothing, lagged measures 0.
            evaluateStateValues(model, t, frames, Eigen::VectorXd(), Eigen::VectorXd(), own);
            stateValues = &own;
        }
        std::vector<double> in, along;
        for (int k : force.inputs[0]) {
            const S& value = (*stateValues)[static_cast<std::size_t>(k)];
            in.push_back(valueOf(value));
            if constexpr (std::is_same_v<S, Dual>) along.push_back(value.b);
        }
        targetOf(force, t, in, along, goal, goalRate);
    }
    S effort = force.stiffness * (goal - q) + force.damping * (goalRate - c.rate);
    if (force.maxEffort > 0.0)
        effort = std::clamp<S>(effort, S(-force.maxEffort), S(force.maxEffort));
    return effort;
}

// One element's generalised force on frames of S, added to g; its energy terms (their values)
// to `energies`.
template <class S>
void applyElement(const Model& model, const ForceModel& force, double t,
                  const std::vector<BodyFrameOf<S>>& frames,
                  const Eigen::VectorXd& jointCoordinates, const std::vector<int>& offsets,
                  VectorOf<S>& g, ForceEnergies& energies, const std::vector<S>& values) {
    using std::isfinite;
    auto component = [&](int c) {
        return evalStateExpression(force.components[c], force.inputs[c], t, values);
    };
    auto bodyOf = [&](int marker) { return model.markers[static_cast<std::size_t>(marker)].body; };
    const Vec3Of<S> zero = Vec3Of<S>::Zero();
    switch (force.type) {
    case ForceType::PointForce:
    case ForceType::PointTorque: {
        const MarkerFrameOf<S> m = markerFrame(model, frames, force.markerI);
        Vec3Of<S> value(component(0), component(1), component(2));
        if (force.inMarkerFrame) value = m.R * value;
        if (force.type == ForceType::PointForce)
            addWrench<S>(frames, bodyOf(force.markerI), m.p, value, zero, g);
        else
            addWrench<S>(frames, bodyOf(force.markerI), m.p, zero, value, g);
        break;
    }
    case ForceType::SpringDamper: {
        const SpringStateOf<S> k = springState<S>(model, force, frames, jointCoordinates, offsets);
        if (!k.directed) break;  // no length: direction undefined, no force (documented)
        // Tension pulls I towards J and J towards I.
        const MarkerFrameOf<S> mi = markerFrame(model, frames, force.markerI);
        const MarkerFrameOf<S> mj = markerFrame(model, frames, force.markerJ);
        addWrench<S>(frames, bodyOf(force.markerI), mi.p, k.force * k.u, zero, g);
        addWrench<S>(frames, bodyOf(force.markerJ), mj.p, -k.force * k.u, zero, g);
        energies.elastic += k.energy;
        energies.dampingPower += valueOf(k.damping * k.rate);
        break;
    }
    case ForceType::Cable: {
        const SpringStateOf<S> k = springState<S>(model, force, frames, jointCoordinates, offsets);
        // Each straight piece pulls its two ends towards each other with its span's tension.
        for (std::size_t i = 0; i < k.pieces.size(); ++i) {
            const CablePieceOf<S>& piece = k.pieces[i];
            const Vec3Of<S> pull = k.pieceForce[i] * piece.u;
            addWrench<S>(frames, bodyOf(k.anchors[static_cast<std::size_t>(piece.from)]), piece.a,
                         pull, zero, g);
            addWrench<S>(frames, bodyOf(k.anchors[static_cast<std::size_t>(piece.to)]), piece.b,
                         -pull, zero, g);
        }
        energies.elastic += k.energy;
        energies.dampingPower += k.dampingPower;
        break;
    }
    case ForceType::RotationalSpringDamper: {
        const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
        const SpringStateOf<S> k = springState<S>(model, force, frames, jointCoordinates, offsets);
        // Torque −force on I about J's z axis, the opposite on J.
        const MarkerFrameOf<S> mj = markerFrame(model, frames, joint.markerJ);
        const Vec3Of<S> T = -k.force * mj.R.col(2);
        const MarkerFrameOf<S> mi = markerFrame(model, frames, joint.markerI);
        addWrench<S>(frames, bodyOf(joint.markerI), mi.p, zero, T, g);
        addWrench<S>(frames, bodyOf(joint.markerJ), mj.p, zero, -T, g);
        energies.elastic += k.energy;
        energies.dampingPower += valueOf(k.damping * k.rate);
        break;
    }
    case ForceType::JointController: {
        const Eigen::Index slot = offsets[static_cast<std::size_t>(force.joint)] + force.coordinate;
        const double last = jointCoordinates.size() > slot ? jointCoordinates(slot) : 0.0;
        S rate = S(0.0);
        const S effort = effortOf<S>(model, force, t, frames, last, rate, &values);
        addJointEffort<S>(model, force, frames, effort, g);
        energies.actuatorPower += valueOf(effort * rate);
        break;
    }
    case ForceType::ComputedTorque:
        // Its effort hangs on the whole tree's M(q) and h(q, q̇): added with the others' by
        // the dynamics (engine/dynamics/joint_control.h), where the tree is; treated as
        // explicit by the implicit integrators (no derivative here).
        break;
    case ForceType::JointForce: {
        // Its work is the actuator's, as a controller's.
        const S effort = component(0);
        addJointEffort<S>(model, force, frames, effort, g);
        energies.actuatorPower += valueOf(
            effort * jointCoordinateMotion(model, frames, force.joint, force.coordinate).rate);
        break;
    }
    case ForceType::LineForce: {
        // Positive pushes I and J apart along the line between their origins (Adams' SFORCE).
        const MarkerFrameOf<S> mi = markerFrame(model, frames, force.markerI);
        const MarkerFrameOf<S> mj = markerFrame(model, frames, force.markerJ);
        const Vec3Of<S> d = mi.p - mj.p;
        const S length = normOf(d);
        const S f = component(0);
        if (valueOf(length) < 1e-12) {  // direction undefined: no force, unless not a number
            if (!isfinite(f)) layout::linear(g, 0).setConstant(f);
            break;
        }
        const Vec3Of<S> u = d / length;
        addWrench<S>(frames, bodyOf(force.markerI), mi.p, f * u, zero, g);
        addWrench<S>(frames, bodyOf(force.markerJ), mj.p, -f * u, zero, g);
        energies.actuatorPower += valueOf(f * (mi.v - mj.v).dot(u));
        break;
    }
    case ForceType::Bushing: {
        // Displacement of I from J and rotation of I relative to J, in J's axes; the force
        // and torque act on I at its origin, their opposites on J (torque about I's origin
        // moved to J's origin by the lever arm, handled by addWrench's world point).
        const MarkerFrameOf<S> mi = markerFrame(model, frames, force.markerI);
        const MarkerFrameOf<S> mj = markerFrame(model, frames, force.markerJ);
        const Vec3Of<S> x = mj.R.transpose() * (mi.p - mj.p);
        const Vec3Of<S> xd = mj.R.transpose() * (mi.v - mj.v - mj.w.cross(mi.p - mj.p));
        const Vec3Of<S> theta = rotationVector(mj.R, mi.R);
        const Vec3Of<S> thetad = mj.R.transpose() * (mi.w - mj.w);
        // Per axis of J: the elastic law on the displacement (rotation), the damping law on
        // its rate.
        Vec3Of<S> F_J, T_J;
        for (int a = 0; a < 3; ++a) {
            const S fe =
                elasticForce(force.bushingElastic[a].get(), force.translationalStiffness(a), x(a));
            const S fd =
                dampingForce(force.bushingDamping[a].get(), force.translationalDamping(a), xd(a));
            const S te = elasticForce(force.bushingElastic[a + 3].get(),
                                      force.rotationalStiffness(a), theta(a));
            const S td = dampingForce(force.bushingDamping[a + 3].get(), force.rotationalDamping(a),
                                      thetad(a));
            F_J(a) = -(fe + fd);
            T_J(a) = -(te + td);
            energies.elastic += elasticEnergy(force.bushingElastic[a].get(),
                                              force.translationalStiffness(a), valueOf(x(a))) +
                                elasticEnergy(force.bushingElastic[a + 3].get(),
                                              force.rotationalStiffness(a), valueOf(theta(a)));
            energies.dampingPower += valueOf(fd * xd(a) + td * thetad(a));
        }
        const Vec3Of<S> F = mj.R * F_J, T = mj.R * T_J;
        addWrench<S>(frames, bodyOf(force.markerI), mi.p, F, T, g);
        addWrench<S>(frames, bodyOf(force.markerJ), mi.p, -F, -T, g);
        break;
    }
    }
}

}  // namespace

void applyForceElement(const Model& model, const ForceModel& force, double t,
                       const std::vector<BodyFrame>& frames,
                       const Eigen::VectorXd& jointCoordinates, const Eigen::VectorXd& lagged,
                       const std::vector<int>& offsets, Eigen::VectorXd& g, ForceEnergies& energies,
                       const std::vector<double>* stateValues) {
    if (!force.on) return;  // switched off
    // What the element's expressions read of the state, when they read any.
    thread_local std::vector<double> own;
    if (!stateValues && usesState(force)) {
        evaluateStateValues(model, t, frames, jointCoordinates, lagged, own);
        stateValues = &own;
    }
    static const std::vector<double> none;
    applyElement<double>(model, force, t, frames, jointCoordinates, offsets, g, energies,
                         stateValues ? *stateValues : none);
}

SpringReading springReading(const Model& model, const ForceModel& force,
                            const std::vector<BodyFrame>& frames,
                            const Eigen::VectorXd& jointCoordinates,
                            const std::vector<int>& offsets) {
    const SpringStateOf<double> k =
        springState<double>(model, force, frames, jointCoordinates, offsets);
    if (!force.on || !k.directed) return {k.length, k.rate, 0.0};
    return {k.length, k.rate, k.force};
}

std::vector<CableSlipReading> cableSlips(const Model& model, const ForceModel& force,
                                         const std::vector<BodyFrame>& frames,
                                         const Eigen::VectorXd& jointCoordinates,
                                         const std::vector<int>& offsets) {
    const SpringStateOf<double> k =
        springState<double>(model, force, frames, jointCoordinates, offsets);
    std::vector<CableSlipReading> out(force.via.size());
    for (std::size_t p = 0; p < force.via.size(); ++p) {
        CableSlipReading& r = out[p];
        const int before = k.spanBefore[p + 1];
        r.slip = k.slip[p + 1];
        if (before < 0 || before + 1 >= static_cast<int>(k.spanTension.size())) continue;
        r.cut = true;
        r.before = k.spanTension[static_cast<std::size_t>(before)];
        r.after = k.spanTension[static_cast<std::size_t>(before) + 1];
        r.wrap = k.wrapAngle[p + 1];
    }
    return out;
}

std::vector<CableSpanRow> cableSpanRows(const Model& model, const ForceModel& force,
                                        const std::vector<BodyFrame>& frames,
                                        const Eigen::VectorXd& jointCoordinates,
                                        const std::vector<int>& offsets) {
    const SpringStateOf<double> k =
        springState<double>(model, force, frames, jointCoordinates, offsets);
    std::vector<CableSpanRow> rows(k.spanLength.size());
    for (std::size_t s = 0; s < rows.size(); ++s) {
        rows[s].length = k.spanLength[s];
        const double scale = s < force.spanScale.size() ? force.spanScale[s] : 1.0;
        rows[s].limit = force.freeLength / scale;
    }
    // Each piece's ends moving apart along it lengthen its span: (v_b − v_a) · u, each end's
    // velocity its body's at that point.
    auto add = [&](CableSpanRow& row, int body, const Vec3& p, const Vec3& u) {
        if (body == kGround) return;
        const BodyFrame& f = frames[static_cast<std::size_t>(body)];
        Eigen::Matrix<double, 6, 1> J;
        J.head<3>() = u;
        J.tail<3>() = f.R.transpose() * (p - f.r).cross(u);
        for (int side = 0; side < 2; ++side) {
            if (row.body[side] == body) {
                row.J[side] += J;
                return;
            }
            if (row.body[side] == kGround) {
                row.body[side] = body;
                row.J[side] = J;
                return;
            }
        }
        row.moreBodies = true;
    };
    for (std::size_t i = 0; i < k.pieces.size(); ++i) {
        const CablePieceOf<double>& piece = k.pieces[i];
        CableSpanRow& row = rows[static_cast<std::size_t>(k.pieceSpan[i])];
        const int from =
            model.markers[static_cast<std::size_t>(k.anchors[static_cast<std::size_t>(piece.from)])]
                .body;
        const int to =
            model.markers[static_cast<std::size_t>(k.anchors[static_cast<std::size_t>(piece.to)])]
                .body;
        add(row, from, piece.a, -piece.u);
        add(row, to, piece.b, piece.u);
    }
    return rows;
}

std::string nonFiniteExpression(const ForceModel& force, double t) {
    if (!force.on) return {};
    auto quoted = [](const Expression& e) { return "its expression '" + e.text() + "'"; };
    switch (force.type) {
    case ForceType::PointForce:
    case ForceType::PointTorque: {
        static constexpr const char* axes[3] = {"x", "y", "z"};
        for (int c = 0; c < 3; ++c)
            if (force.inputs[c].empty())
                if (const double value = force.components[c].eval(t); !std::isfinite(value))
                    return quoted(force.components[c]) + " (" + axes[c] + " component) is " +
                           numberText(value) + " at t = " + timeText(t);
        return {};
    }
    case ForceType::LineForce:
    case ForceType::JointForce:
        if (force.inputs[0].empty())
            if (const double value = force.components[0].eval(t); !std::isfinite(value))
                return quoted(force.components[0]) + " (magnitude) is " + numberText(value) +
                       " at t = " + timeText(t);
        return {};
    case ForceType::ComputedTorque: {
        // Its rate and acceleration are the expression's own (exact).
        const Jet2 target = force.components[0].timeJet(t);
        const char* what = !std::isfinite(target.v)    ? "is "
                           : !std::isfinite(target.d1) ? "has the rate "
                           : !std::isfinite(target.d2) ? "has the acceleration "
                                                       : nullptr;
        if (!what) return {};
        const double value = !std::isfinite(target.v)    ? target.v
                             : !std::isfinite(target.d1) ? target.d1
                                                         : target.d2;
        return quoted(force.components[0]) + " (target) " + what + numberText(value) +
               " at t = " + timeText(t);
    }
    case ForceType::JointController: {
        const Expression& target = force.components[0];
        if (!force.inputs[0].empty()) return {};
        if (const double value = target.eval(t); !std::isfinite(value))
            return quoted(target) + " (target) is " + numberText(value) + " at t = " + timeText(t);
        const double rate = target.derivative(t);
        if (std::isfinite(rate)) return {};
        // The rate takes the values up to 2 ms ahead (Expression::derivative): where the
        // target itself stops being finite is what the user can act on.
        const std::string rateText = "its rate, taken over the 2 ms ahead, is " + numberText(rate) +
                                     " at t = " + timeText(t);
        for (int k = 1; k <= 40; ++k) {
            const double tk = t + 1e-4 * k;
            if (const double value = target.eval(tk); !std::isfinite(value))
                return quoted(target) + " (target) is " + numberText(value) +
                       " at t = " + timeText(tk) + " (" + rateText + ")";
        }
        return quoted(target) + " (target): " + rateText;
    }
    case ForceType::SpringDamper:
    case ForceType::RotationalSpringDamper:
    case ForceType::Bushing:
    case ForceType::Cable:
        break;  // no expressions
    }
    return {};
}

std::string nonFiniteExpression(const Model& model, const ForceModel& force, double t,
                                const std::vector<BodyFrame>& frames,
                                const Eigen::VectorXd& jointCoordinates,
                                const Eigen::VectorXd& lagged) {
    if (std::string cause = nonFiniteExpression(force, t); !cause.empty()) return cause;
    std::vector<double> values;
    evaluateStateValues(model, t, frames, jointCoordinates, lagged, values);
    static constexpr const char* axes[3] = {"x component", "y component", "z component"};
    const int count =
        force.type == ForceType::PointForce || force.type == ForceType::PointTorque ? 3 : 1;
    for (int c = 0; c < count; ++c) {
        const std::vector<int>& inputs = force.inputs[c];
        if (inputs.empty()) continue;
        const double value = evalStateExpression(force.components[c], inputs, t, values);
        if (std::isfinite(value)) continue;
        // What it read: the measures and variables, by name, with their values.
        std::string read;
        const int variables = static_cast<int>(model.variables.size());
        for (int k : inputs) {
            const std::string name =
                k < variables ? model.variables[static_cast<std::size_t>(k)].name
                              : model.measures[static_cast<std::size_t>(k - variables)].text;
            read += (read.empty() ? "" : ", ") + name + " = " +
                    numberText(values[static_cast<std::size_t>(k)]);
        }
        return "its expression '" + force.components[c].text() + "' (" +
               (count == 3                 ? axes[c]
                : isJointServo(force.type) ? "target"
                                           : "magnitude") +
               ") is " + numberText(value) + " at t = " + timeText(t) + ", where " + read;
    }
    return {};
}

double forceMagnitude(const Model& model, const ForceModel& force, double t,
                      const std::vector<BodyFrame>& frames, const Eigen::VectorXd& jointCoordinates,
                      const Eigen::VectorXd& lagged) {
    if (!force.on) return 0.0;
    if (force.inputs[0].empty()) return force.components[0].eval(t);
    std::vector<double> values;
    evaluateStateValues(model, t, frames, jointCoordinates, lagged, values);
    return evalStateExpression(force.components[0], force.inputs[0], t, values);
}

std::array<int, 2> forceElementBodies(const Model& model, const ForceModel& force) {
    auto bodyOf = [&](int marker) {
        return marker < 0 ? kGround : model.markers[static_cast<std::size_t>(marker)].body;
    };
    if (actsOnJoint(force.type)) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
        return {bodyOf(joint.markerI), bodyOf(joint.markerJ)};
    }
    return {bodyOf(force.markerI), bodyOf(force.markerJ)};
}

void forceElementJacobian(const Model& model, const ForceModel& force, double t,
                          const std::vector<BodyFrame>& frames,
                          const Eigen::VectorXd& jointCoordinates, const Eigen::VectorXd& lagged,
                          const std::vector<int>& offsets, const std::vector<int>& bodies,
                          Eigen::MatrixXd& K, Eigen::MatrixXd& D) {
    constexpr int kPer = layout::kVelocitiesPerBody;
    const Eigen::Index size = kPer * static_cast<Eigen::Index>(bodies.size());
    K.setZero(size, size);
    D.setZero(size, size);
    if (!force.on) return;
    // The frames on dual numbers: those of `bodies` set from `frames` (the element reads no
    // other), tangents zero but along the direction being taken.
    thread_local std::vector<BodyFrameOf<Dual>> dual;
    thread_local VectorOf<Dual> g;
    thread_local std::vector<Dual> values;
    if (dual.size() != frames.size()) dual.assign(frames.size(), BodyFrameOf<Dual>());
    if (g.size() != model.velocitySize()) g.setZero(model.velocitySize());
    for (int b : bodies) {
        const BodyFrame& f = frames[static_cast<std::size_t>(b)];
        BodyFrameOf<Dual>& d = dual[static_cast<std::size_t>(b)];
        d.R = f.R.cast<Dual>();
        d.r = f.r.cast<Dual>();
        d.v = f.v.cast<Dual>();
        d.w = f.w.cast<Dual>();
    }
    const bool state = usesState(force);
    ForceEnergies scratch;
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        const BodyFrame& f = frames[static_cast<std::size_t>(bodies[k])];
        BodyFrameOf<Dual>& d = dual[static_cast<std::size_t>(bodies[k])];
        for (int c = 0; c < 2 * kPer; ++c) {
            const Vec3 e = Vec3::Unit(c % 3);
            // The direction: δr, δπ' (R' = R [e]×, and w = R ω' turns: w' = (R e) × w), δv, δω'.
            Vec3 dr = Vec3::Zero(), dv = Vec3::Zero(), dw = Vec3::Zero();
            Mat3 dR = Mat3::Zero();
            switch (c / 3) {
            case 0:
                dr = e;
                break;
            case 1:
                dR = f.R * skew(e);
                dw = (f.R * e).cross(f.w);
                break;
            case 2:
                dv = e;
                break;
            default:
                dw = f.R * e;
                break;
            }
            for (int i = 0; i < 3; ++i) {
                d.r(i).b = dr(i);
                d.v(i).b = dv(i);
                d.w(i).b = dw(i);
                for (int j = 0; j < 3; ++j) d.R(i, j).b = dR(i, j);
            }
            for (int b : bodies) layout::twist(g, b).setZero();
            if (state) evaluateStateValues(model, t, dual, jointCoordinates, lagged, values);
            applyElement<Dual>(model, force, t, dual, jointCoordinates, offsets, g, scratch,
                               values);
            Eigen::MatrixXd& J = c < kPer ? K : D;
            const Eigen::Index column = kPer * static_cast<Eigen::Index>(k) + c % kPer;
            for (std::size_t i = 0; i < bodies.size(); ++i)
                for (int r = 0; r < kPer; ++r)
                    J(kPer * static_cast<Eigen::Index>(i) + r, column) =
                        g(layout::velocityIndex(bodies[i]) + r).b;
        }
        // Tangents back to zero for the next body's directions.
        d.R = f.R.cast<Dual>();
        d.r = f.r.cast<Dual>();
        d.v = f.v.cast<Dual>();
        d.w = f.w.cast<Dual>();
    }
}

double controllerEffort(const Model& model, const ForceModel& force, double t,
                        const std::vector<BodyFrame>& frames, double lastValue, double* rate,
                        const std::vector<double>* stateValues) {
    double own = 0.0;
    return effortOf<double>(model, force, t, frames, lastValue, rate ? *rate : own, stateValues);
}

void applyJointEffort(const Model& model, const ForceModel& force,
                      const std::vector<BodyFrame>& frames, double effort, Eigen::VectorXd& g) {
    addJointEffort<double>(model, force, frames, effort, g);
}

int computeAppliedForces(const Model& model, double t, const std::vector<BodyFrame>& frames,
                         const Eigen::VectorXd& v, const Eigen::VectorXd& jointCoordinates,
                         const Eigen::VectorXd& lagged, Eigen::VectorXd& g, ForceEnergies* energies,
                         const std::vector<char>* held) {
    g.setZero(model.velocitySize());
    ForceEnergies local;

    // Gravity and the gyroscopic term, per body (on the engine's threads for many).
    runRanges(model.bodies.size(), kParallelBodies, [&](std::size_t first, std::size_t last) {
        for (std::size_t body = first; body < last; ++body) {
            if (held && (*held)[body]) continue;
            const int b = static_cast<int>(body);
            const BodyModel& part = model.bodies[body];
            const Vec3 w = layout::angular(v, b);
            layout::linear(g, b) += part.mass * model.gravity;
            layout::angular(g, b) -= w.cross(part.inertia.cwiseProduct(w));
        }
    });

    // Viscous joint friction: −c ċ on the coordinate (its Coulomb part is solved with contact).
    for (const JointFrictionModel& f : model.frictions) {
        if (f.viscous <= 0.0) continue;
        const JointModel& joint = model.joints[static_cast<std::size_t>(f.joint)];
        if (f.ball) {
            // A ball joint's: −c (ω_I − ω_J) on I, the opposite on J.
            const int bi = model.markers[static_cast<std::size_t>(joint.markerI)].body;
            const int bj = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
            const Vec3 wi = bi >= 0 ? frames[static_cast<std::size_t>(bi)].w : Vec3::Zero();
            const Vec3 wj = bj >= 0 ? frames[static_cast<std::size_t>(bj)].w : Vec3::Zero();
            const Vec3 torque = -f.viscous * (wi - wj);
            if (bi >= 0)
                layout::angular(g, bi) +=
                    frames[static_cast<std::size_t>(bi)].R.transpose() * torque;
            if (bj >= 0)
                layout::angular(g, bj) -=
                    frames[static_cast<std::size_t>(bj)].R.transpose() * torque;
            local.dampingPower += f.viscous * (wi - wj).squaredNorm();
            continue;
        }
        const ConstraintRow c = jointCoordinate(model, frames, f.joint, f.coordinate);
        const double force = -f.viscous * c.rate;
        const int bi = model.markers[static_cast<std::size_t>(joint.markerI)].body;
        const int bj = model.markers[static_cast<std::size_t>(joint.markerJ)].body;
        if (bi >= 0) layout::twist(g, bi) += force * c.Ji.transpose();
        if (bj >= 0) layout::twist(g, bj) += force * c.Jj.transpose();
        local.dampingPower += f.viscous * c.rate * c.rate;
    }

    int nonFinite = -1;
    if (model.forces.empty()) {  // (no element to name: non-finite states are caught upstream)
        if (energies) *energies = local;
        return -1;
    }
    const std::vector<int> offsets = jointCoordinateOffsets(model);
    thread_local std::vector<double> values;
    const bool state = model.stateValueCount() > 0;
    if (state) evaluateStateValues(model, t, frames, jointCoordinates, lagged, values);
    for (std::size_t index = 0; index < model.forces.size(); ++index) {
        if (nonFinite < 0 && !allFinite(g)) nonFinite = static_cast<int>(index) - 1;
        applyForceElement(model, model.forces[index], t, frames, jointCoordinates, lagged, offsets,
                          g, local, state ? &values : nullptr);
    }
    if (nonFinite < 0 && !allFinite(g) && !model.forces.empty())
        nonFinite = static_cast<int>(model.forces.size()) - 1;
    if (energies) *energies = local;
    return nonFinite;
}

}  // namespace engine
