#include "engine/model/model.h"

#include "engine/model/deactivation.h"

#include "engine/math/cable_path.h"
#include "engine/math/constants.h"
#include "engine/math/number_text.h"
#include "engine/model/compile_counts.h"
#include "engine/model/curve.h"
#include "engine/model/deactivation.h"
#include "engine/model/stiffness.h"
#include "engine/model/surface.h"
#include "engine/model/welds.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <tuple>

#include <Eigen/Eigenvalues>

#include "engine/model/mass_properties.h"

namespace engine {
namespace {

// Marker m's axes and origin in the world at the initial poses.
std::pair<Mat3, Vec3> initialMarker(const Model& model, int m) {
    const MarkerModel& marker = model.markers[static_cast<std::size_t>(m)];
    if (marker.body == kGround) return {marker.R_BM, marker.X_BM.p};
    const Transform& X = model.bodies[static_cast<std::size_t>(marker.body)].X_WB0;
    const Mat3 R = X.R.toRotationMatrix();
    return {R * marker.R_BM, X.p + R * marker.X_BM.p};
}

// A cable's turning pulleys and spans from its path at the initial poses: where the cable is
// fixed on each turning pulley (the wrap's middle), and the spans' shares of its length.
void prepareCable(const Model& model, ForceModel& f) {
    std::vector<int> points{f.markerI};
    points.insert(points.end(), f.via.begin(), f.via.end());
    points.push_back(f.markerJ);
    std::vector<CableAnchor> anchors(points.size());
    for (std::size_t k = 0; k < points.size(); ++k) {
        std::tie(anchors[k].R, anchors[k].p) = initialMarker(model, points[k]);
        if (k == 0 || k + 1 == points.size()) continue;
        const ForceModel::Wrap& w = f.wraps[k - 1];
        anchors[k].radius = w.radius;
        anchors[k].sense = w.sense;
        anchors[k].liftsOff = !w.cuts();
    }
    const CableContacts solved = solveCablePath(anchors);
    const CablePathOf<double> path = cablePath(anchors, solved);
    std::vector<double> cut(anchors.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t k = 1; k + 1 < anchors.size(); ++k) {
        ForceModel::Wrap& w = f.wraps[k - 1];
        if (!w.cuts() || solved.slot[k] < 0) continue;
        w.material = 0.5 * (path.phiIn[k] + path.phiOut[k]);
        cut[k] = w.material;
        if (w.joint < 0) continue;  // a pulley with friction: fixed on its part
        // The joint's angle (engine/kinematics/joint_coordinates.h: I's x from J's about J's
        // z), and which way the pulley turns about its own z with it.
        const JointModel& joint = model.joints[static_cast<std::size_t>(w.joint)];
        const auto [R_I, p_I] = initialMarker(model, joint.markerI);
        const auto [R_J, p_J] = initialMarker(model, joint.markerJ);
        const double angle =
            std::atan2(R_J.col(0).cross(R_I.col(0)).dot(R_J.col(2)), R_J.col(0).dot(R_I.col(0)));
        const bool onI = model.markers[static_cast<std::size_t>(joint.markerI)].body ==
                         model.markers[static_cast<std::size_t>(points[k])].body;
        const double along = anchors[k].R.col(2).dot(onI ? R_I.col(2) : R_J.col(2));
        w.turning = (along > 0.0) == onI ? 1 : -1;
        w.carrier = w.material + w.turning * angle;
    }
    const CableSpansOf<double> spans = cableSpans(anchors, path, cut);
    f.spanScale.clear();
    for (double length : spans.length)
        f.spanScale.push_back(length > 1e-12 ? path.length / length : 1.0);
}

Primitive coincident() {
    return {PrimitiveType::Coincident, 0, 0, 0.0, nullptr, nullptr, nullptr};
}
Primitive dot1(int axisI, int axisJ) {
    return {PrimitiveType::Dot1, axisI, axisJ, 0.0, nullptr, nullptr, nullptr};
}
Primitive dot2(int axisI) {
    return {PrimitiveType::Dot2, axisI, 0, 0.0, nullptr, nullptr, nullptr};
}

constexpr int X = 0, Y = 1, Z = 2;

// A marker's pose in the world at the parts' initial poses.
Transform initialMarkerPose(const Model& model, int marker) {
    const MarkerModel& m = model.markers[static_cast<std::size_t>(marker)];
    return m.body == kGround ? m.X_BM
                             : model.bodies[static_cast<std::size_t>(m.body)].X_WB0 * m.X_BM;
}

// Joint coordinate `coordinate` of `joint` at the parts' initial poses, as the kinematics
// measures it (engine/kinematics/joint_coordinates.h): I's x axis from J's about J's z, or I's
// origin from J's along J's z.
double initialCoordinate(const Model& model, const JointModel& joint, int coordinate) {
    const Transform I = initialMarkerPose(model, joint.markerI);
    const Transform J = initialMarkerPose(model, joint.markerJ);
    const Vec3 zj = J.R * Vec3::UnitZ();
    if (joint.coordinates[static_cast<std::size_t>(coordinate)] == JointAxis::Translation)
        return zj.dot(I.p - J.p);
    const Vec3 xi = I.R * Vec3::UnitX(), xj = J.R * Vec3::UnitX();
    return std::atan2(xj.cross(xi).dot(zj), xj.dot(xi));
}

// Index of `axis` among a joint's coordinates (a cylindrical joint's are angle, slide).
int coordinateOf(const JointModel& joint, JointAxis axis) {
    const auto it = std::find(joint.coordinates.begin(), joint.coordinates.end(), axis);
    return static_cast<int>(it - joint.coordinates.begin());
}

// A coupler's row: its terms on the model's joints (validate() checked that they exist and
// have the coordinates asked for), their coefficients from the geometry at the initial poses,
// and what its force is reported as.
CouplerModel compileCoupler(const Model& model, const CouplerSpec& spec,
                            const std::map<std::string, int, std::less<>>& jointIndex,
                            const std::vector<int>& coordinateOffset) {
    CouplerModel c;
    c.id = spec.id;
    c.name = spec.name;
    c.type = spec.type;
    auto term = [&](const std::string& name, JointAxis axis, double coefficient) {
        CouplerTermModel t;
        t.joint = jointIndex.at(name);
        t.coordinate = coordinateOf(model.joints[static_cast<std::size_t>(t.joint)], axis);
        t.slot = coordinateOffset[static_cast<std::size_t>(t.joint)] + t.coordinate;
        t.coefficient = coefficient;
        c.terms.push_back(t);
    };
    // The axis (z of marker J, world) and a point on it of a joint at the initial poses.
    auto axisOf = [&](const std::string& name) {
        const JointModel& j = model.joints[static_cast<std::size_t>(jointIndex.at(name))];
        const Transform J = initialMarkerPose(model, j.markerJ);
        return std::pair<Vec3, Vec3>{J.R * Vec3::UnitZ(), J.p};
    };
    // Which way each joint's coordinate turns its gear: the gears are the parts the two joints
    // do not share (the carrier, often the ground, is the one they do); a coordinate measures
    // its joint's part I against part J, so it counts the gear's motion with the sign
    // ε = +1 when the gear is part I, −1 when it is part J. Joints that share no part are taken
    // as their coordinates are measured (ε = +1).
    auto bodiesOf = [&](const std::string& name) {
        const JointModel& j = model.joints[static_cast<std::size_t>(jointIndex.at(name))];
        return std::pair<int, int>{model.markers[static_cast<std::size_t>(j.markerI)].body,
                                   model.markers[static_cast<std::size_t>(j.markerJ)].body};
    };
    double epsI = 1.0, epsJ = 1.0;
    int movingMarkerJ = -1;  // joint J's marker on its moving part (the rack's)
    bool shared = false;     // the two joints share a carrier part
    if (spec.type != CouplerType::Screw && spec.type != CouplerType::Linear) {
        const auto [aI, bI] = bodiesOf(spec.jointI);
        const auto [aJ, bJ] = bodiesOf(spec.jointJ);
        const JointModel& jI = model.joints[static_cast<std::size_t>(jointIndex.at(spec.jointI))];
        const JointModel& jJ = model.joints[static_cast<std::size_t>(jointIndex.at(spec.jointJ))];
        movingMarkerJ = jJ.markerI;
        if (bI == aJ || bI == bJ)
            epsI = 1.0;  // I's part J is the carrier
        else if (aI == aJ || aI == bJ)
            epsI = -1.0;  // I's part I is
        if (bJ == aI || bJ == bI) {
            epsJ = 1.0;
        } else if (aJ == aI || aJ == bI) {
            epsJ = -1.0;
            movingMarkerJ = jJ.markerJ;
        }
        const int carrierI = epsI > 0.0 ? bI : aI, carrierJ = epsJ > 0.0 ? bJ : aJ;
        shared = carrierI == carrierJ && (carrierI == bJ || carrierI == aJ) &&
                 (carrierI == bI || carrierI == aI) && aI != bI && aJ != bJ &&
                 !(aI == aJ && bI == bJ) && !(aI == bJ && bI == aJ);
        if (shared) {
            c.carrier = carrierI;
            c.gearBodies[0] = epsI > 0.0 ? aI : bI;
            c.gearBodies[1] = epsJ > 0.0 ? aJ : bJ;
            c.axleMarkers[0] = jI.markerJ;
            c.axleMarkers[1] = jJ.markerJ;
        }
    }
    switch (spec.type) {
    case CouplerType::Gear: {
        // ε_I θ̇I = ∓ ratio ε_J θ̇J about a common direction: external gears turn opposite ways.
        const auto [zI, pI] = axisOf(spec.jointI);
        const auto [zJ, pJ] = axisOf(spec.jointJ);
        const double sense = zI.dot(zJ) >= 0.0 ? 1.0 : -1.0;
        term(spec.jointI, JointAxis::Rotation, 1.0);
        term(spec.jointJ, JointAxis::Rotation,
             (spec.internal ? -1.0 : 1.0) * sense * epsI * epsJ * spec.ratio);
        // Pitch radii from the centre distance of parallel axes: rI + rJ = C (external),
        // |rJ − rI| = C (internal), rJ = ratio rI.
        if (std::abs(zI.dot(zJ)) > 1.0 - 1e-9) {
            const Vec3 d = pJ - pI;
            const double C = (d - d.dot(zI) * zI).norm();
            const double den = spec.internal ? std::abs(spec.ratio - 1.0) : 1.0 + spec.ratio;
            if (C > 1e-12 && den > 0.0) c.lever = C / den;
        }
        c.forceTerm = 0;
        if (shared && c.lever > 0.0) {
            // Rolling at the pitch point: t·(v_I(P) − v_J(P)) = ε_I r_I (θ̇I + c θ̇J).
            c.rolling = true;
            c.pitchRadius = c.lever;
            c.toward = spec.internal && spec.ratio > 1.0 ? -1.0 : 1.0;
            c.rollScale = epsI * c.lever;
        }
        break;
    }
    case CouplerType::RackPinion: {
        // The rack moves with the pinion's pitch point: ε_R ṡ = σ r ε_P θ̇, σ from the side of
        // the pinion's axis the rack lies on (its joint marker), about that axis.
        const auto [z, p] = axisOf(spec.jointI);
        const Vec3 d = axisOf(spec.jointJ).first;
        Vec3 n = initialMarkerPose(model, movingMarkerJ).p - p;
        n -= n.dot(z) * z;
        const Vec3 along = d - d.dot(z) * z;
        if (along.norm() > 1e-12) n -= n.dot(along.normalized()) * along.normalized();
        const double sigma = n.norm() > 1e-12 && d.dot(z.cross(n)) < 0.0 ? -1.0 : 1.0;
        term(spec.jointI, JointAxis::Rotation, -epsI * epsJ * sigma * spec.radius);
        term(spec.jointJ, JointAxis::Translation, 1.0);
        c.forceTerm = 1;
        c.lever = 1.0;
        if (shared && d.cross(z).norm() > 1e-9) {
            // Rolling at the pitch point: t·(v_P(P) − v_R(P)) = −ε_R (ṡ − ε_R ε_P σ r θ̇).
            c.rolling = true;
            c.pitchRadius = spec.radius;
            c.toward = sigma;
            c.rollScale = -epsJ;
        }
        break;
    }
    case CouplerType::Screw:
        term(spec.jointI, JointAxis::Rotation, -spec.pitch / (2.0 * kPi));
        term(spec.jointI, JointAxis::Translation, 1.0);
        c.forceTerm = 1;
        c.lever = 1.0;
        break;
    case CouplerType::Linear:
        for (const CouplerTerm& t : spec.terms) term(t.joint, t.axis, t.coefficient);
        break;
    }
    if (spec.type == CouplerType::Linear && !std::isnan(spec.offset)) {
        c.offset = spec.offset;
    } else {
        c.offset = 0.0;
        for (const CouplerTermModel& t : c.terms)
            c.offset += t.coefficient *
                        initialCoordinate(model, model.joints[static_cast<std::size_t>(t.joint)],
                                          t.coordinate);
    }
    return c;
}

// Principal frame of an inertia tensor: R_PB with the principal axes as columns (right-handed)
// and the principal moments, ascending.
void principalAxes(const Mat3& I_P, Mat3& R_PB, Vec3& moments) {
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(0.5 * (I_P + I_P.transpose()));
    R_PB = eig.eigenvectors();
    moments = eig.eigenvalues();
    if (R_PB.determinant() < 0.0) R_PB.col(2) = -R_PB.col(2);
}

// Parts whose masses (or moments of inertia) are many orders apart: the joints' equations are
// weighed by them (S = Φq M⁻¹ Φqᵀ), and beyond about 10¹² the solver cannot meet them to the
// joint tolerance; a run that then fails names the part, but the cause is in the scene before
// it runs (a 1e-9 kg part beside a 1e6 kg one). Said naming the lightest and the heaviest
// (moments of inertia further apart: robot files hold 1e-12 kg·m² placeholders that run).
// Only parts on joints are weighed so: a free part (a slab a pile rests on, a pebble) is in no
// joint's equation, and a scene of free parts has none to meet.
constexpr double kMassRatioWarned = 1e10;
constexpr double kInertiaRatioWarned = 1e14;  // Baxter's grippers: 1e-12 beside 6 kg·m²

void warnAboutMassRatios(const Model& model, Diagnostics& diagnostics) {
    std::vector<const BodyModel*> jointed;
    {
        std::vector<char> onJoint(model.bodies.size(), 0);
        for (const JointModel& joint : model.joints)
            for (const int marker : {joint.markerI, joint.markerJ})
                if (const int b = model.markers[static_cast<std::size_t>(marker)].body; b >= 0)
                    onJoint[static_cast<std::size_t>(b)] = 1;
        for (std::size_t b = 0; b < model.bodies.size(); ++b)
            if (onJoint[b]) jointed.push_back(&model.bodies[b]);
    }
    if (jointed.size() < 2) return;
    auto place = [&](const BodyModel& body) { return "/parts/" + std::to_string(body.partIndex); };
    const auto [lightestAt, heaviestAt] = std::minmax_element(
        jointed.begin(), jointed.end(),
        [](const BodyModel* a, const BodyModel* b) { return a->mass < b->mass; });
    const BodyModel* lightest = *lightestAt;
    const BodyModel* heaviest = *heaviestAt;
    if (lightest->mass > 0.0 && heaviest->mass > kMassRatioWarned * lightest->mass) {
        diagnostics.push_back(
            {Severity::Warning, place(*lightest),
             "part '" + lightest->name + "' (" + numberText(lightest->mass, 3) + " kg) and part '" +
                 heaviest->name + "' (" + numberText(heaviest->mass, 3) +
                 " kg) differ in mass by " + numberText(heaviest->mass / lightest->mass, 3) +
                 " (beyond " + numberText(kMassRatioWarned, 3) +
                 "): the joints' equations are weighed by the masses, and so far apart they may "
                 "not be met to the joint tolerance (the run stops); check both masses"});
        return;
    }
    const BodyModel* smallest = jointed[0];
    const BodyModel* largest = jointed[0];
    for (const BodyModel* body : jointed) {
        if (body->inertia.minCoeff() < smallest->inertia.minCoeff()) smallest = body;
        if (body->inertia.maxCoeff() > largest->inertia.maxCoeff()) largest = body;
    }
    const double low = smallest->inertia.minCoeff(), high = largest->inertia.maxCoeff();
    if (low > 0.0 && high > kInertiaRatioWarned * low)
        diagnostics.push_back(
            {Severity::Warning, place(*smallest),
             "part '" + smallest->name + "' (a moment of inertia of " + numberText(low, 3) +
                 " kg·m²) and part '" + largest->name + "' (" + numberText(high, 3) +
                 " kg·m²) differ in inertia by " + numberText(high / low, 3) + " (beyond " +
                 numberText(kInertiaRatioWarned, 3) +
                 "): the joints' equations are weighed by the inertias, and so far apart they "
                 "may not be met to the joint tolerance (the run stops); check both parts' "
                 "moments (of the order of a part's mass times its size squared)"});
}

}  // namespace

std::vector<Primitive> jointPrimitives(JointType type, double length) {
    // Marker J's z is the joint axis; marker I's x and y are kept perpendicular to it where the
    // joint aligns axes, and the offset d = P_J − P_I is kept along / in planes of I's axes.
    switch (type) {
    case JointType::Fixed:
        return {coincident(), dot1(X, Z), dot1(Y, Z), dot1(X, Y)};
    case JointType::Revolute:
        return {coincident(), dot1(X, Z), dot1(Y, Z)};
    case JointType::Prismatic:
        return {dot1(X, Z), dot1(Y, Z), dot2(X), dot2(Y), dot1(X, Y)};
    case JointType::Cylindrical:
        return {dot1(X, Z), dot1(Y, Z), dot2(X), dot2(Y)};
    case JointType::Spherical:
        return {coincident()};
    case JointType::Universal:
        return {coincident(), dot1(Z, Z)};
    case JointType::Planar:
        return {dot1(X, Z), dot1(Y, Z), dot2(Z)};
    case JointType::Distance:
        return {{PrimitiveType::Distance, 0, 0, length, nullptr, nullptr, nullptr}};
    case JointType::PointOnLine:
        return {dot2(X), dot2(Y)};
    case JointType::PointOnPlane:
        return {dot2(Z)};
    case JointType::ParallelAxes:
        return {dot1(X, Z), dot1(Y, Z)};
    case JointType::PerpendicularAxes:
        return {dot1(Z, Z)};
    case JointType::PointOnCurve:
        return {{PrimitiveType::OnCurve, 0, 0, 0.0, nullptr, nullptr, nullptr}};
    case JointType::CurveOnCurve:
        return {{PrimitiveType::CamContact, 0, 0, 0.0, nullptr, nullptr, nullptr}};
    case JointType::PointOnSurface:
        return {{PrimitiveType::OnSurface, 0, 0, 0.0, nullptr, nullptr, nullptr}};
    }
    return {};
}

std::atomic<std::uint64_t> detail::compileCount{0};

CompileCounts compileCounts() {
    return {detail::validationCount.load(std::memory_order_relaxed),
            detail::compileCount.load(std::memory_order_relaxed)};
}

std::uint64_t newModelSerial() {
    static std::atomic<std::uint64_t> serials{0};
    return ++serials;
}

namespace {

// Welded parts `group` (the first its root) as one body: their mass properties combined in the
// root's frame, on principal axes at the combined centre of mass; its initial velocity the one
// that keeps the parts' momentum and angular momentum (what the mass-weighted projection onto
// the welds gives); each part's frame and centre of mass in the body's.
void foldGroup(const SceneSpec& spec, const std::vector<std::size_t>& group, Model& model) {
    const Part& root = spec.parts[group.front()];
    const Transform X_RW = root.X_WP.inverse();
    MassProperties total;
    std::vector<MassProperties> own(group.size());
    for (std::size_t k = 0; k < group.size(); ++k) {
        const Part& part = spec.parts[group[k]];
        own[k] = partMassProperties(part);
        const Transform X_RP = X_RW * part.X_WP;
        const Mat3 R = X_RP.rotationMatrix();
        total =
            combine(total, {own[k].mass, X_RP * own[k].p_PPcm, R * own[k].I_Pcm_P * R.transpose()});
    }
    BodyModel body;
    body.id = root.id;
    body.name = root.name;
    body.partIndex = static_cast<int>(group.front());
    body.mass = total.mass;
    Mat3 R_RB;
    principalAxes(total.I_Pcm_P, R_RB, body.inertia);
    body.X_PB = Transform{Quat(R_RB).normalized(), total.p_PPcm};
    body.X_WB0 = root.X_WP * body.X_PB;
    // Momentum and angular momentum about the combined centre of mass, from each part's own.
    const Vec3 c = body.X_WB0.p;
    Vec3 P = Vec3::Zero(), H = Vec3::Zero();
    for (std::size_t k = 0; k < group.size(); ++k) {
        const Part& part = spec.parts[group[k]];
        const Vec3 r = part.X_WP * own[k].p_PPcm;
        const Vec3 v = part.v_WPo_W + part.w_WP_W.cross(part.X_WP.R * own[k].p_PPcm);
        const Mat3 R = part.X_WP.rotationMatrix();
        P += own[k].mass * v;
        H += R * own[k].I_Pcm_P * R.transpose() * part.w_WP_W + own[k].mass * (r - c).cross(v);
    }
    body.v_WBcm0_W = P / total.mass;
    body.w_WB0_B = body.inertia.cwiseInverse().asDiagonal() * (body.X_WB0.R.conjugate() * H);
    const int b = model.bodyCount();
    const Transform X_BR = body.X_PB.inverse();
    for (std::size_t k = 0; k < group.size(); ++k) {
        const Part& part = spec.parts[group[k]];
        PartModel& folded = model.parts[group[k]];
        folded.body = b;
        folded.X_BP = k == 0 ? X_BR : X_BR * (X_RW * part.X_WP);
        folded.com_B = folded.X_BP * own[k].p_PPcm;
        model.bodyOfPart[group[k]] = b;
    }
    model.bodies.push_back(body);
}

}  // namespace

CompileResult compile(const SceneSpec& scene, std::optional<Analysis> analysis) {
    detail::compileCount.fetch_add(1, std::memory_order_relaxed);
    CompileResult result;
    result.diagnostics = validate(scene);
    if (hasErrors(result.diagnostics)) return result;
    // What is deactivated is left out: the model is built from the scene without it.
    const Deactivation out = deactivation(scene, analysis);
    std::optional<SceneSpec> withoutOut;
    if (!out.empty()) {
        const Diagnostics errors = deactivationErrors(scene, out);
        result.diagnostics.insert(result.diagnostics.end(), errors.begin(), errors.end());
        if (!errors.empty()) return result;
        withoutOut = withoutInactive(scene, out);
    }
    const SceneSpec& spec = withoutOut ? *withoutOut : scene;

    auto model = std::make_shared<Model>();
    model->serial = newModelSerial();
    model->name = spec.name;
    model->gravity = spec.gravity;
    model->settings = spec.settings;
    model->contact = buildContactModel(spec);

    // Bodies: every moving part, its frame moved to the COM on principal axes.
    std::map<std::string, int, std::less<>> partIndex;
    // Parts welded together share one body (their group's: engine/model/welds.h); a part welded
    // to the ground is the ground's.
    const WeldGroups welds = weldGroups(spec);
    if (!welds.errors.empty()) {
        for (Diagnostic d : welds.errors) {  // (the scene's joint index, parts left out or not)
            const std::size_t j = std::stoul(d.where.substr(std::string("/joints/").size()));
            for (std::size_t k = 0; k < scene.joints.size(); ++k)
                if (scene.joints[k].name == spec.joints[j].name)
                    d.where = "/joints/" + std::to_string(k);
            d.entities = {spec.joints[j].id};
            result.diagnostics.push_back(d);
        }
        return result;
    }
    model->weldNotes = welds.notes;
    model->bodyOfPart.assign(spec.parts.size(), kGround);
    model->parts.resize(spec.parts.size());
    for (std::size_t p = 0; p < spec.parts.size(); ++p) model->parts[p].name = spec.parts[p].name;
    for (std::size_t p = 0; p < spec.parts.size(); ++p) {
        const Part& part = spec.parts[p];
        partIndex[part.name] = static_cast<int>(p);
        model->partPoses0.push_back(part.X_WP);
        if (welds.root[p] < 0) {  // on the ground: where it stands, its centre in the world
            model->parts[p].X_BP = part.X_WP;
            if (!part.ground) model->parts[p].com_B = part.X_WP * partMassProperties(part).p_PPcm;
            continue;
        }
        if (welds.root[p] != static_cast<int>(p)) continue;  // with its group's root
        std::vector<std::size_t> group;
        for (std::size_t q = p; q < spec.parts.size(); ++q)
            if (welds.root[q] == static_cast<int>(p)) group.push_back(q);
        if (group.size() > 1) {
            foldGroup(spec, group, *model);
            continue;
        }
        const MassProperties mp = partMassProperties(part);
        BodyModel body;
        body.id = part.id;
        body.name = part.name;
        body.partIndex = static_cast<int>(p);
        body.mass = mp.mass;
        Mat3 R_PB;
        principalAxes(mp.I_Pcm_P, R_PB, body.inertia);
        body.X_PB = Transform{Quat(R_PB).normalized(), mp.p_PPcm};
        body.X_WB0 = part.X_WP * body.X_PB;
        // The spec gives the velocity of P's origin; the COM moves with ω × (COM − origin).
        body.v_WBcm0_W = part.v_WPo_W + part.w_WP_W.cross(part.X_WP.R * mp.p_PPcm);
        body.w_WB0_B = body.X_WB0.R.conjugate() * part.w_WP_W;
        model->bodyOfPart[p] = model->bodyCount();
        model->parts[p].body = model->bodyCount();
        model->parts[p].X_BP = body.X_PB.inverse();
        model->bodies.push_back(body);
    }
    // Contact between the parts of one welded group (one body, or the ground) is left out.
    if (welds.any()) {
        std::map<int, std::vector<int>> members;  // per group (the ground's: −1)
        for (std::size_t p = 0; p < spec.parts.size(); ++p)
            members[welds.root[p]].push_back(static_cast<int>(p));
        for (const auto& [root, parts] : members)
            for (std::size_t a = 0; a < parts.size(); ++a)
                for (std::size_t b = a + 1; b < parts.size(); ++b)
                    if (!spec.parts[static_cast<std::size_t>(parts[a])].ground ||
                        !spec.parts[static_cast<std::size_t>(parts[b])].ground)
                        model->contact.excluded.emplace_back(parts[a], parts[b]);
    }
    std::sort(model->contact.excluded.begin(), model->contact.excluded.end());
    model->contact.excluded.erase(
        std::unique(model->contact.excluded.begin(), model->contact.excluded.end()),
        model->contact.excluded.end());

    // Markers, in their body frame (ground markers in the world).
    std::map<std::string, int, std::less<>> markerIndex;
    for (std::size_t p = 0; p < spec.parts.size(); ++p) {
        const Part& part = spec.parts[p];
        const int b = model->bodyOfPart[p];
        for (const Marker& marker : part.markers) {
            MarkerModel m;
            m.id = marker.id;
            m.name = part.name + "." + marker.name;
            m.body = b;
            m.part = static_cast<int>(p);
            m.X_BM = model->parts[p].X_BP * marker.X_PM;
            m.R_BM = m.X_BM.rotationMatrix();
            markerIndex[m.name] = static_cast<int>(model->markers.size());
            model->markers.push_back(m);
        }
    }
    auto marker = [&](const MarkerRef& ref) { return markerIndex.at(ref.text()); };

    // Joints as primitives.
    std::map<std::string, int, std::less<>> jointIndex;
    int coordinateCount = 0;  // joint coordinates so far (State::jointCoordinates)
    for (const Joint& joint : spec.joints) {
        JointModel j;
        j.id = joint.id;
        j.name = joint.name;
        j.type = joint.type;
        j.markerI = marker(joint.markerI);
        j.markerJ = marker(joint.markerJ);
        // A soft joint's soft equations go to the model's soft constraints; the others stay.
        const JointCompliance& soft = joint.compliance;
        j.softRowOffset = model->softRows;
        // The curves of a joint on curves (validate() has checked they make one).
        std::shared_ptr<const Curve> curve, follower;
        if (joint.type == JointType::PointOnCurve || joint.type == JointType::CurveOnCurve) {
            std::string error, key;
            curve = Curve::make(joint.curve, error, key);
            if (joint.type == JointType::CurveOnCurve)
                follower = Curve::make(joint.follower, error, key);
            j.curve = curve;
            j.follower = follower;
        }
        std::shared_ptr<const Surface> surface;
        if (joint.type == JointType::PointOnSurface) {
            std::string error, key;
            surface = Surface::make(joint.surface, error, key);
            j.surface = surface;
        }
        const auto spec_j = static_cast<std::size_t>(&joint - spec.joints.data());
        j.folded = welds.folded[spec_j];
        if (j.folded) j.carried = welds.carried[spec_j];
        for (Primitive p : jointPrimitives(joint.type, joint.length)) {
            if (j.folded) break;
            p.curve = curve;
            p.follower = follower;
            p.surface = surface;
            // A cam whose follower may lift off has no equation: its gap is a stop (below).
            if (p.type == PrimitiveType::CamContact && joint.liftOff) continue;
            const bool angle = p.type == PrimitiveType::Dot1;
            if (angle ? soft.softAngles() : soft.softLengths()) {
                SoftConstraint sc;
                sc.joint = static_cast<int>(model->joints.size());
                sc.primitive = p;
                sc.frequency = soft.frequency;
                sc.dampingRatio = soft.dampingRatio;
                sc.stiffness = angle ? soft.rotationalStiffness : soft.stiffness;
                sc.damping = angle ? soft.rotationalDamping : soft.damping;
                model->softConstraints.push_back(sc);
                j.softRows += p.rows();
                model->softRows += p.rows();
            } else {
                j.primitives.push_back(p);
            }
        }
        for (const Primitive& p : j.primitives) {
            j.rows += p.rows();
            static const char* axis[] = {"x", "y", "z"};
            switch (p.type) {
            case PrimitiveType::Coincident:
                for (const char* a : axis) j.rowLabels.push_back(std::string("coincident ") + a);
                break;
            case PrimitiveType::Dot1:
                j.rowLabels.push_back(std::string("perpendicular ") + axis[p.axisI] + "_I, " +
                                      axis[p.axisJ] + "_J");
                break;
            case PrimitiveType::Dot2:
                j.rowLabels.push_back(std::string("in plane normal to ") + axis[p.axisI] + "_I");
                break;
            case PrimitiveType::Distance:
                j.rowLabels.push_back("distance");
                break;
            case PrimitiveType::OnCurve:
                j.rowLabels.push_back("on the curve, across it");
                j.rowLabels.push_back("on the curve, out of its plane");
                break;
            case PrimitiveType::CamContact:
                j.rowLabels.push_back("contours in contact");
                break;
            case PrimitiveType::OnSurface:
                j.rowLabels.push_back("on the surface");
                break;
            }
        }
        j.coordinates = jointAxes(joint.type);
        for (std::size_t c = 0; c < joint.limits.size() && c < j.coordinates.size(); ++c) {
            const JointLimit& l = joint.limits[c];
            if (!l.limited()) continue;
            LimitModel limit;
            limit.joint = static_cast<int>(model->joints.size());
            limit.coordinate = static_cast<int>(c);
            limit.slot = coordinateCount + static_cast<int>(c);
            limit.axis = j.coordinates[c];
            limit.lower = l.lower;
            limit.upper = l.upper;
            limit.restitution = l.restitution;
            limit.frequency = l.frequency;
            limit.dampingRatio = l.dampingRatio;
            model->limits.push_back(limit);
        }
        if (joint.type == JointType::CurveOnCurve && joint.liftOff) {
            // The follower stays off the cam or on it: gap ≥ 0, a stop at 0 (with the joint's
            // restitution and compliance, if it gives them).
            LimitModel limit;
            limit.joint = static_cast<int>(model->joints.size());
            limit.slot = coordinateCount;
            limit.axis = JointAxis::Translation;
            limit.lower = 0.0;
            limit.upper = std::numeric_limits<double>::infinity();
            if (!joint.limits.empty()) {
                limit.restitution = joint.limits[0].restitution;
                limit.frequency = joint.limits[0].frequency;
                limit.dampingRatio = joint.limits[0].dampingRatio;
            }
            limit.liftOff = true;
            model->limits.push_back(limit);
        }
        for (std::size_t c = 0; c < joint.friction.size() && c < j.coordinates.size(); ++c) {
            const JointFriction& f = joint.friction[c];
            if (!f.active()) continue;
            JointFrictionModel friction;
            friction.joint = static_cast<int>(model->joints.size());
            friction.coordinate = static_cast<int>(c);
            friction.slot = coordinateCount + static_cast<int>(c);
            friction.axis = j.coordinates[c];
            friction.coefficient = f.coefficient;
            friction.staticCoefficient = f.breakaway();
            friction.radius = f.radius;
            friction.length = f.length;
            friction.preload = f.preload;
            friction.viscous = f.viscous;
            friction.ball = joint.type == JointType::Spherical;
            model->frictions.push_back(friction);
        }
        coordinateCount += static_cast<int>(j.coordinates.size());
        jointIndex[j.name] = static_cast<int>(model->joints.size());
        model->jointRowOffset.push_back(model->jointRows);
        model->jointRows += j.rows;
        model->joints.push_back(std::move(j));
    }

    // Moving frames: a hidden joint each, after the scene's (whose indices stay the spec's),
    // holding the part's body to its prescribed pose (engine/kinematics/frame_motion.h).
    for (std::size_t p = 0; p < spec.parts.size(); ++p) {
        const Part& part = spec.parts[p];
        const int b = model->bodyOfPart[p];
        if (!part.frameMotion || b == kGround) continue;
        auto motion = std::make_shared<FrameMotionModel>();
        motion->body = b;
        std::string error;
        for (int c = 0; c < 3; ++c) {
            if (auto e =
                    Expression::parseWithConstants(part.frameMotion->translation[c], error,
                                                   designConstants(spec), {}, sceneTables(spec)))
                motion->translation[c] = *e;
            if (auto e =
                    Expression::parseWithConstants(part.frameMotion->rotation[c], error,
                                                   designConstants(spec), {}, sceneTables(spec)))
                motion->rotation[c] = *e;
        }
        const Transform& X_WB0 = model->bodies[static_cast<std::size_t>(b)].X_WB0;
        motion->origin0 = part.X_WP.p;
        motion->X_MB = Transform{X_WB0.R, X_WB0.p - part.X_WP.p};
        MarkerModel onBody, onGround;
        onBody.id = onGround.id = part.id;
        onBody.name = part.name + ".(frame)";
        onBody.body = b;
        onGround.name = "(world)." + part.name;
        onGround.X_BM = X_WB0;
        onGround.R_BM = X_WB0.rotationMatrix();
        JointModel j;
        j.id = part.id;
        j.name = part.name;
        j.type = JointType::Fixed;
        j.markerI = static_cast<int>(model->markers.size());
        j.markerJ = j.markerI + 1;
        model->markers.push_back(onBody);
        model->markers.push_back(onGround);
        j.primitives.push_back({PrimitiveType::Coincident, 2, 2, 0.0, nullptr, nullptr, nullptr});
        static constexpr int kPairs[3][2] = {{0, 1}, {1, 2}, {2, 0}};
        static const char* axis[] = {"x", "y", "z"};
        for (const char* a : axis) j.rowLabels.push_back(std::string("position ") + a);
        for (const auto& pair : kPairs) {
            j.primitives.push_back(
                {PrimitiveType::Dot1, pair[0], pair[1], 0.0, nullptr, nullptr, nullptr});
            j.rowLabels.push_back(std::string("perpendicular ") + axis[pair[0]] + "_I, " +
                                  axis[pair[1]] + "_J (orientation)");
        }
        j.rows = 6;
        j.softRowOffset = model->softRows;
        j.frameMotion = std::move(motion);
        model->frameJoints.push_back(static_cast<int>(model->joints.size()));
        model->jointRowOffset.push_back(model->jointRows);
        model->jointRows += j.rows;
        model->joints.push_back(std::move(j));
    }

    model->jointCoordinateCount = coordinateCount;

    // Couplers: one row each after the joints'.
    model->couplerRowOffset = model->jointRows;
    {
        const std::vector<int> offsets = [&] {
            std::vector<int> out;
            int n = 0;
            for (const JointModel& j : model->joints) {
                out.push_back(n);
                n += static_cast<int>(j.coordinates.size());
            }
            return out;
        }();
        for (const CouplerSpec& coupler : spec.couplers)
            model->couplers.push_back(compileCoupler(*model, coupler, jointIndex, offsets));
        model->jointRows += static_cast<int>(model->couplers.size());
    }

    // What expressions read of the state: variables (values 0 … V−1, in an order in which each
    // follows those it uses), then measures, added as expressions name them.
    std::map<std::string, int, std::less<>> variableValue;
    std::vector<std::vector<int>>
        variableMeasures;  // per variable: the measures it reads, through others too
    const auto resolveFrame = [&](const std::string& name) {
        MeasureFrame f;
        f.given = true;
        if (const std::size_t dot = name.find('.'); dot != std::string::npos) {
            const MarkerModel& m = model->markers[static_cast<std::size_t>(markerIndex.at(name))];
            f.body = m.body;
            f.X_BM = m.X_BM;
            return f;
        }
        for (std::size_t p = 0; p < spec.parts.size(); ++p)
            if (spec.parts[p].name == name) {
                f.body = model->parts[p].body;
                f.X_BM = model->parts[p].X_BP;
            }
        return f;
    };
    const auto measureIndex = [&](const MeasureCall& call) {
        const std::string text = call.text();
        for (std::size_t k = 0; k < model->measures.size(); ++k)
            if (model->measures[k].text == text) return static_cast<int>(k);
        MeasureModel m;
        m.kind = call.kind;
        m.text = text;
        if (call.kind == MeasureKind::Q || call.kind == MeasureKind::QD) {
            m.joint = jointIndex.at(call.arguments[0]);
            m.coordinate = call.arguments.size() > 1 ? std::stoi(call.arguments[1]) : 0;
            int slot = 0;
            for (int j = 0; j < m.joint; ++j)
                slot +=
                    static_cast<int>(model->joints[static_cast<std::size_t>(j)].coordinates.size());
            m.slot = slot + m.coordinate;
        } else if (measureReadsJoint(call.kind)) {  // a reaction, in k's axes
            m.joint = jointIndex.at(call.arguments[0]);
            if (call.arguments.size() > 1) m.frames[2] = resolveFrame(call.arguments[1]);
            m.slot = model->laggedCount++;
        } else if (call.kind == MeasureKind::FN || call.kind == MeasureKind::FT) {
            for (std::size_t p = 0; p < spec.parts.size(); ++p) {
                if (spec.parts[p].name == call.arguments[0]) m.partA = static_cast<int>(p);
                if (spec.parts[p].name == call.arguments[1]) m.partB = static_cast<int>(p);
            }
            m.slot = model->laggedCount++;
        } else {
            for (std::size_t a = 0; a < call.arguments.size() && a < 3; ++a)
                m.frames[a] = resolveFrame(call.arguments[a]);
        }
        model->measures.push_back(std::move(m));
        return static_cast<int>(model->measures.size()) - 1;
    };
    const int variableCount = static_cast<int>(spec.variables.size());
    // The state values an expression's inputs read, and the measures behind them.
    const auto resolveInputs = [&](const StateText& split, std::vector<int>& measuresRead) {
        std::vector<int> inputs;
        for (const MeasureCall& call : split.calls) {
            const int m = measureIndex(call);
            inputs.push_back(-1 - m);  // measures' indices are offset once all are known
            measuresRead.push_back(m);
        }
        for (const std::string& name : split.variables) {
            const int v = variableValue.at(name);
            inputs.push_back(v);
            const std::vector<int>& behind = variableMeasures[static_cast<std::size_t>(v)];
            measuresRead.insert(measuresRead.end(), behind.begin(), behind.end());
        }
        return inputs;
    };
    const auto finishInputs = [&](std::vector<int>& inputs) {
        for (int& k : inputs)
            if (k < 0) k = variableCount + (-1 - k);
    };
    if (variableCount > 0) {
        std::string cycle;
        const std::vector<int> order = variableOrder(spec, cycle).value_or(std::vector<int>{});
        for (int k : order) {
            const VariableSpec& v = spec.variables[static_cast<std::size_t>(k)];
            VariableModel vm;
            vm.name = v.name;
            std::string error;
            StateText split;
            std::vector<int> read;
            if (v.initial) {  // held: a number, its slot in State::switches below
                vm.expression = Expression::constant(*v.initial);
                vm.expression.setText(v.name);
            } else if (auto e = parseStateExpression(spec, v.expression, split, error)) {
                vm.expression = *e;
                vm.inputs = resolveInputs(split, read);
            }
            variableValue[v.name] = static_cast<int>(model->variables.size());
            variableMeasures.push_back(std::move(read));
            model->variables.push_back(std::move(vm));
        }
    }
    const auto bodiesOf = [&](const std::vector<int>& measures) {
        std::vector<int> bodies;
        const auto add = [&](int b) {
            if (b != kGround && std::find(bodies.begin(), bodies.end(), b) == bodies.end())
                bodies.push_back(b);
        };
        for (int m : measures) {
            const MeasureModel& mm = model->measures[static_cast<std::size_t>(m)];
            if (mm.joint >= 0) {
                const JointModel& joint = model->joints[static_cast<std::size_t>(mm.joint)];
                add(model->markers[static_cast<std::size_t>(joint.markerI)].body);
                add(model->markers[static_cast<std::size_t>(joint.markerJ)].body);
            }
            for (const MeasureFrame& f : mm.frames)
                if (f.given) add(f.body);
        }
        return bodies;
    };

    // Force elements (expressions were checked by validate()).
    const Expression::Tables tables = sceneTables(spec);
    for (const ForceSpec& spec_f : spec.forces) {
        ForceModel f;
        f.id = spec_f.id;
        f.name = spec_f.name;
        f.type = spec_f.type;
        if (actsOnJoint(spec_f.type)) {
            f.joint = jointIndex.at(spec_f.joint);
            // A cylindrical joint's coordinates are (angle, slide); the others have one.
            const JointModel& joint = model->joints[static_cast<std::size_t>(f.joint)];
            if (spec_f.type != ForceType::RotationalSpringDamper && joint.coordinates.size() > 1 &&
                spec_f.axis == JointAxis::Translation)
                f.coordinate = 1;
            f.maxEffort = spec_f.maxEffort;
            f.gravityCompensation =
                spec_f.type == ForceType::JointController && spec_f.gravityCompensation;
        } else {
            f.markerI = marker(spec_f.markerI);
            if (spec_f.type == ForceType::SpringDamper || spec_f.type == ForceType::Bushing ||
                spec_f.type == ForceType::LineForce || spec_f.type == ForceType::Cable)
                f.markerJ = marker(spec_f.markerJ);
            if (spec_f.type == ForceType::Cable) {
                for (const CableVia& v : spec_f.via) {
                    f.via.push_back(marker(v.marker));
                    ForceModel::Wrap& w = f.wraps.emplace_back();
                    w.radius = v.pulley ? v.radius : 0.0;
                    w.sense = v.clockwise ? -1 : 1;
                    if (v.pulley && !v.joint.empty()) w.joint = jointIndex.at(v.joint);
                    if (v.pulley && v.joint.empty()) w.friction = v.friction;
                }
                f.slack = spec_f.slack;
                f.inextensible = spec_f.inextensible;
                prepareCable(*model, f);
            }
        }
        std::string error;
        std::vector<int> read;
        for (int c = 0; c < 3; ++c) {
            StateText split;
            if (auto e = parseStateExpression(spec, spec_f.components[c], split, error)) {
                f.components[c] = *e;
                f.inputs[c] = resolveInputs(split, read);
            }
        }
        f.stateBodies = bodiesOf(read);
        // A cable acts on its via points' bodies too: the implicit step differentiates there.
        for (int m : f.via)
            if (const int b = model->markers[static_cast<std::size_t>(m)].body;
                b != kGround &&
                std::find(f.stateBodies.begin(), f.stateBodies.end(), b) == f.stateBodies.end())
                f.stateBodies.push_back(b);
        f.inMarkerFrame = spec_f.inMarkerFrame;
        f.stiffness = spec_f.stiffness;
        f.damping = spec_f.damping;
        f.freeLength = spec_f.freeLength;
        f.preload = spec_f.preload;
        f.translationalStiffness = spec_f.translationalStiffness;
        f.translationalDamping = spec_f.translationalDamping;
        f.rotationalStiffness = spec_f.rotationalStiffness;
        f.rotationalDamping = spec_f.rotationalDamping;
        // Laws from tables, each in place of its constant, which takes the law's steepest slope.
        auto law = [&](const std::string& name, double& constant) {
            std::shared_ptr<const TableCurve> curve;
            for (const auto& [tableName, table] : tables)
                if (!name.empty() && tableName == name) curve = table;
            if (curve) constant = curve->steepestSlope();
            return curve;
        };
        f.elasticLaw = law(spec_f.stiffnessTable, f.stiffness);
        f.dampingLaw = law(spec_f.dampingTable, f.damping);
        for (int axis = 0; axis < 3; ++axis) {
            const auto a = static_cast<std::size_t>(axis);
            f.bushingElastic[a] =
                law(spec_f.translationalStiffnessTables[a], f.translationalStiffness(axis));
            f.bushingDamping[a] =
                law(spec_f.translationalDampingTables[a], f.translationalDamping(axis));
            f.bushingElastic[a + 3] =
                law(spec_f.rotationalStiffnessTables[a], f.rotationalStiffness(axis));
            f.bushingDamping[a + 3] =
                law(spec_f.rotationalDampingTables[a], f.rotationalDamping(axis));
        }
        f.on = spec_f.startsOn;
        model->forces.push_back(std::move(f));
    }
    for (const SensorSpec& spec_s : spec.sensors) {
        SensorModel sensor;
        sensor.name = spec_s.name;
        sensor.value = spec_s.value;
        sensor.direction = spec_s.direction;
        sensor.action = spec_s.action;
        std::string error;
        StateText split;
        std::vector<int> read;
        if (auto e = parseStateExpression(spec, spec_s.expression, split, error)) {
            sensor.expression = *e;
            sensor.inputs = resolveInputs(split, read);
        }
        if (spec_s.action == SensorAction::Set) {
            StateText to;
            if (auto e = parseStateExpression(spec, spec_s.to, to, error)) {
                sensor.to = *e;
                sensor.toInputs = resolveInputs(to, read);
            }
        }
        model->sensors.push_back(std::move(sensor));
    }
    for (SensorModel& sensor : model->sensors) {
        finishInputs(sensor.inputs);
        finishInputs(sensor.toInputs);
    }
    for (VariableModel& v : model->variables) finishInputs(v.inputs);
    for (ForceModel& f : model->forces)
        for (std::vector<int>& inputs : f.inputs) finishInputs(inputs);

    // Drivers.
    for (const MotionSpec& motion : spec.motions) {
        DriverModel d;
        d.id = motion.id;
        d.name = motion.name;
        d.joint = jointIndex.at(motion.joint);
        const JointModel& joint = model->joints[static_cast<std::size_t>(d.joint)];
        for (std::size_t c = 0; c < joint.coordinates.size(); ++c)
            if (joint.coordinates[c] == motion.axis) d.coordinate = static_cast<int>(c);
        d.level = motion.level;
        std::string error;
        if (auto e = Expression::parseWithConstants(motion.expression, error, designConstants(spec),
                                                    {}, sceneTables(spec)))
            d.f = *e;
        d.on = motion.startsOn;
        model->drivers.push_back(std::move(d));
    }

    // What the run switches (State::switches): the held variables, then the forces and motions
    // that a sensor switches or that start off.
    const auto slotOf = [&](SwitchKind kind, int index) {
        for (std::size_t k = 0; k < model->switches.size(); ++k)
            if (model->switches[k].kind == kind && model->switches[k].index == index)
                return static_cast<int>(k);
        return -1;
    };
    for (const VariableSpec& v : spec.variables)
        if (v.initial) {
            const int index = variableValue.at(v.name);
            model->variables[static_cast<std::size_t>(index)].held =
                static_cast<int>(model->switches.size());
            model->switches.push_back({SwitchKind::Held, index, 0, *v.initial, v.name});
        }
    const auto switched = [&](const std::string& name) {
        return std::any_of(spec.sensors.begin(), spec.sensors.end(), [&](const SensorSpec& s) {
            return (s.action == SensorAction::SwitchOn || s.action == SensorAction::SwitchOff) &&
                   s.target == name;
        });
    };
    for (std::size_t k = 0; k < model->forces.size(); ++k)
        if (!model->forces[k].on || switched(model->forces[k].name))
            model->switches.push_back({SwitchKind::Force, static_cast<int>(k), 0,
                                       model->forces[k].on ? 1.0 : 0.0, model->forces[k].name});
    for (std::size_t k = 0; k < model->drivers.size(); ++k)
        if (!model->drivers[k].on || switched(model->drivers[k].name))
            model->switches.push_back({SwitchKind::Motion, static_cast<int>(k), 0,
                                       model->drivers[k].on ? 1.0 : 0.0, model->drivers[k].name});
    // A cable's slip over each pulley with friction, and whether it slips: "rope.slip2" [m] and
    // "rope.slipping2" for its point 2.
    for (std::size_t k = 0; k < model->forces.size(); ++k)
        for (std::size_t p = 0; p < model->forces[k].wraps.size(); ++p)
            if (model->forces[k].wraps[p].friction > 0.0)
                for (const SwitchKind kind : {SwitchKind::Slip, SwitchKind::Slipping})
                    model->switches.push_back(
                        {kind, static_cast<int>(k), static_cast<int>(p), 0.0,
                         model->forces[k].name +
                             (kind == SwitchKind::Slip ? ".slip" : ".slipping") +
                             std::to_string(p + 1)});
    for (std::size_t k = 0; k < spec.sensors.size(); ++k) {
        const SensorSpec& s = spec.sensors[k];
        SensorModel& sensor = model->sensors[k];
        if (s.action == SensorAction::Set) {
            if (const auto v = variableValue.find(s.target); v != variableValue.end())
                sensor.target = slotOf(SwitchKind::Held, v->second);
        } else if (s.action == SensorAction::SwitchOn || s.action == SensorAction::SwitchOff) {
            for (std::size_t f = 0; f < model->forces.size(); ++f)
                if (model->forces[f].name == s.target)
                    sensor.target = slotOf(SwitchKind::Force, static_cast<int>(f));
            for (std::size_t d = 0; d < model->drivers.size(); ++d)
                if (model->drivers[d].name == s.target)
                    sensor.target = slotOf(SwitchKind::Motion, static_cast<int>(d));
        }
    }

    // End stops, Coulomb joint friction and inextensible cables are rows of the velocity-level
    // contact problem: a scene with them steps with it whatever its integrator (validate()
    // says so).
    if (!model->limits.empty() ||
        std::any_of(model->frictions.begin(), model->frictions.end(),
                    [](const JointFrictionModel& f) { return f.coulomb(); }) ||
        std::any_of(model->forces.begin(), model->forces.end(),
                    [](const ForceModel& f) { return f.inextensible; }))
        model->settings.integrator = IntegratorType::TimeStepping;

    if (welds.any()) {
        SceneSpec separate = spec;
        separate.settings.foldWelds = false;
        model->unfolded = compile(separate).model;
    }

    warnAboutMassRatios(*model, result.diagnostics);
    // A spring too stiff for the step blows the run up: said before it runs.
    model->inactive = out.describe();
    for (Diagnostic& d : stiffnessWarnings(*model, scene))
        result.diagnostics.push_back(std::move(d));
    result.model = std::move(model);
    return result;
}

}  // namespace engine
