#include "engine/record/recording.h"
#include "engine/record/channel_names.h"

#include "engine/dynamics/dynamics.h"
#include "engine/forces/forces.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/part_motion.h"
#include "engine/model/layout.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <mutex>

namespace engine {

// Row layout:
//   t | q (7 nb) | v (6 nb) | driverWork, dissipated, stepHint | joint coordinates (nc) |
//   joint rates (nc) | ω in world axes (3 nb) | reactions (14 per joint: F_W, T_W, F_J, T_J,
//   |F|, |T|) |
//   driver efforts | kinetic, gravitational, elastic | constraint error | controller efforts |
//   powers | limit forces | friction forces | coupler forces | contact
FrameLayout::FrameLayout(const Model& model, bool stepOrigins, bool solverMemory,
                         bool springChannels, bool stepperMemory)
    : nq_(model.positionSize()),
      nv_(model.velocitySize()),
      nc_(0),
      joints_(static_cast<int>(model.joints.size())),
      drivers_(static_cast<int>(model.drivers.size())) {
    for (const JointModel& joint : model.joints) nc_ += static_cast<int>(joint.coordinates.size());
    auto add = [&](std::string name, std::string unit, int offset) {
        channels_.push_back({std::move(name), std::move(unit), offset});
    };
    namespace ch = channels;
    add(ch::kTime, "s", 0);
    const int q0 = 1, v0 = q0 + nq_, extra = v0 + nv_, coords = extra + 3, rates = coords + nc_,
              omega = rates + nc_, reactions = omega + 3 * model.bodyCount(),
              efforts = reactions + 14 * joints_, energies = efforts + drivers_;
    // Each part's centre of mass (position, velocity) and angular velocity: a part that is its
    // body's alone reads its body's columns; one of a welded group's (a body of several parts,
    // engine/model/welds.h), or one welded to the ground, has columns of its own at the row's
    // end, from its body's. (The scene's ground parts have none.)
    std::vector<int> partsOnBody(static_cast<std::size_t>(model.bodyCount()), 0);
    for (const PartModel& part : model.parts)
        if (part.body != kGround) ++partsOnBody[static_cast<std::size_t>(part.body)];
    for (std::size_t p = 0; p < model.parts.size(); ++p) {
        const PartModel& part = model.parts[p];
        const int b = part.body;
        if (isGroundPart(model, p)) continue;
        seen_.push_back(part);
        const std::string& n = part.name;
        if (b == kGround || partsOnBody[static_cast<std::size_t>(b)] > 1) {
            derived_.push_back({part, static_cast<int>(channels_.size()), 0});
            for (int k = 0; k < 3; ++k) add(ch::of(n, ch::kPosition[k]), "m", -1);
            for (int k = 0; k < 3; ++k) add(ch::of(n, ch::kVelocity[k]), "m/s", -1);
            for (int k = 0; k < 3; ++k) add(ch::of(n, ch::kAngularVelocity[k]), "rad/s", -1);
            continue;
        }
        for (int k = 0; k < 3; ++k)
            add(ch::of(n, ch::kPosition[k]), "m",
                q0 + static_cast<int>(layout::positionIndex(b)) + k);
        for (int k = 0; k < 3; ++k)
            add(ch::of(n, ch::kVelocity[k]), "m/s",
                v0 + static_cast<int>(layout::velocityIndex(b)) + k);
        for (int k = 0; k < 3; ++k)
            add(ch::of(n, ch::kAngularVelocity[k]), "rad/s", omega + 3 * b + k);
    }
    int c = 0;
    for (int j = 0; j < joints_; ++j) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
        for (std::size_t k = 0; k < joint.coordinates.size(); ++k, ++c) {
            const bool angle = joint.coordinates[k] == JointAxis::Rotation;
            add(ch::of(joint.name, ch::coordinate(k)), angle ? "rad" : "m", coords + c);
            add(ch::of(joint.name, ch::coordinateRate(k)), angle ? "rad/s" : "m/s", rates + c);
        }
        for (int k = 0; k < 6; ++k)
            add(ch::of(joint.name, ch::kReaction[k]), k < 3 ? "N" : "N·m", reactions + 14 * j + k);
        for (int k = 0; k < 6; ++k)
            add(ch::of(joint.name, ch::kReactionInJ[k]), k < 3 ? "N" : "N·m",
                reactions + 14 * j + 6 + k);
        add(ch::of(joint.name, ch::kForceMagnitude), "N", reactions + 14 * j + 12);
        add(ch::of(joint.name, ch::kTorqueMagnitude), "N·m", reactions + 14 * j + 13);
    }
    for (int d = 0; d < drivers_; ++d) {
        const DriverModel& driver = model.drivers[static_cast<std::size_t>(d)];
        const JointModel& joint = model.joints[static_cast<std::size_t>(driver.joint)];
        const bool torque =
            joint.coordinates[static_cast<std::size_t>(driver.coordinate)] == JointAxis::Rotation;
        add(ch::of(driver.name, ch::kEffort), torque ? "N·m" : "N", efforts + d);
    }
    add(ch::kKineticEnergy, "J", energies);
    add(ch::kGravitationalEnergy, "J", energies + 1);
    add(ch::kElasticEnergy, "J", energies + 2);
    // Sums of kept values, not kept themselves (run files keep the same rows).
    channels_.push_back({ch::kPotentialEnergy, "J", energies + 1, {energies + 2}});
    channels_.push_back({ch::kTotalEnergy, "J", energies, {energies + 1, energies + 2}});
    add(ch::kDriverWork, "J", extra);
    add(ch::kDissipated, "J", extra + 1);
    add(ch::kConstraintError, "m", energies + 3);
    size_ = energies + 4;
    for (const ForceModel& force : model.forces) {
        if (!isJointServo(force.type) && force.type != ForceType::JointForce) continue;
        const JointModel& joint = model.joints[static_cast<std::size_t>(force.joint)];
        const bool torque =
            joint.coordinates[static_cast<std::size_t>(force.coordinate)] == JointAxis::Rotation;
        add(ch::of(force.name, ch::kEffort), torque ? "N·m" : "N", size_++);
        ++controllers_;
    }
    // Power of drivers and controllers: effort × the rate of the coordinate they act on [W].
    const std::vector<int> offsets = jointCoordinateOffsets(model);
    for (const DriverModel& driver : model.drivers) {
        add(ch::of(driver.name, ch::kPower), "W", size_++);
        powerCoordinate_.push_back(offsets[static_cast<std::size_t>(driver.joint)] +
                                   driver.coordinate);
    }
    for (const ForceModel& force : model.forces) {
        if (!isJointServo(force.type) && force.type != ForceType::JointForce) continue;
        add(ch::of(force.name, ch::kPower), "W", size_++);
        powerCoordinate_.push_back(offsets[static_cast<std::size_t>(force.joint)] +
                                   force.coordinate);
    }
    // End stops: each limited coordinate's stop force.
    limits_ = static_cast<int>(model.limits.size());
    for (const LimitModel& limit : model.limits) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(limit.joint)];
        add(ch::of(joint.name,
                   ch::limit(static_cast<std::size_t>(limit.coordinate), joint.coordinates.size())),
            limit.axis == JointAxis::Rotation ? "N·m" : "N", size_++);
    }
    frictions_ = static_cast<int>(model.frictions.size());
    for (const JointFrictionModel& f : model.frictions) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(f.joint)];
        add(ch::of(joint.name,
                   ch::friction(static_cast<std::size_t>(f.coordinate), joint.coordinates.size())),
            f.axis == JointAxis::Rotation ? "N·m" : "N", size_++);
    }
    // Couplers: force and the efforts on their first two coordinates.
    couplers_ = static_cast<int>(model.couplers.size());
    for (const CouplerModel& c : model.couplers) {
        const bool lengthForce = c.lever > 0.0 || c.type == CouplerType::Screw;
        const JointModel& first = model.joints[static_cast<std::size_t>(c.terms[0].joint)];
        add(ch::of(c.name, ch::kCouplerForce),
            lengthForce ? "N"
            : first.coordinates[static_cast<std::size_t>(c.terms[0].coordinate)] ==
                    JointAxis::Rotation
                ? "N·m"
                : "N",
            size_++);
        for (std::size_t t = 0; t < 2; ++t) {
            const CouplerTermModel& term = c.terms[std::min(t, c.terms.size() - 1)];
            const JointModel& joint = model.joints[static_cast<std::size_t>(term.joint)];
            add(ch::of(c.name, ch::kCouplerEffort[t]),
                joint.coordinates[static_cast<std::size_t>(term.coordinate)] == JointAxis::Rotation
                    ? "N·m"
                    : "N",
                size_++);
        }
    }
    // Springs: force (torque), length (angle) and its rate.
    if (springChannels)
        for (const ForceModel& force : model.forces) {
            const bool linear =
                force.type == ForceType::SpringDamper || force.type == ForceType::Cable;
            if (!linear && force.type != ForceType::RotationalSpringDamper) continue;
            ++springs_;
            const char* const* names = linear ? ch::kSpringChannels : ch::kRotationalSpringChannels;
            add(ch::of(force.name, names[0]), linear ? "N" : "N·m", size_++);
            add(ch::of(force.name, names[1]), linear ? "m" : "rad", size_++);
            add(ch::of(force.name, names[2]), linear ? "m/s" : "rad/s", size_++);
        }
    // Moving frames: every other part's position, velocity and angular velocity as seen in
    // each, in its axes ("bob.deck.x").
    for (const int j : model.frameJoints) {
        const int fb = model.joints[static_cast<std::size_t>(j)].frameMotion->body;
        const BodyModel& frameBody = model.bodies[static_cast<std::size_t>(fb)];
        frames_.emplace_back(fb, frameBody.X_PB);
        for (const PartModel& part : seen_) {
            if (part.body == fb) continue;
            const std::string& n = part.name;
            for (int k = 0; k < 3; ++k)
                add(ch::of(n, ch::inFrame(frameBody.name, ch::kPosition[k])), "m", size_++);
            for (int k = 0; k < 3; ++k)
                add(ch::of(n, ch::inFrame(frameBody.name, ch::kVelocity[k])), "m/s", size_++);
            for (int k = 0; k < 3; ++k)
                add(ch::of(n, ch::inFrame(frameBody.name, ch::kAngularVelocity[k])), "rad/s",
                    size_++);
        }
    }
    // Contact: totals of the step that ended at the frame, the solver's figures, and the
    // normal and friction force summed over each contact pair entry's points.
    contact_ = model.contact.enabled;
    if (contact_) {
        const int at = size_;
        add(ch::kContactCount, "", at);
        add(ch::kContactNormalForce, "N", at + 1);
        add(ch::kContactMaxDepth, "m", at + 2);
        add(ch::kContactIterations, "", at + 3);
        add(ch::kContactResidual, "m/s", at + 4);
        add(ch::kContactUnconverged, "", at + 5);
        size_ = at + 6;
        for (const ContactPairModel& pair : model.contact.pairs) {
            contactPairs_.emplace_back(pair.partA, pair.partB);
            add(ch::of(pair.name, ch::kPairNormalForce), "N", size_);
            add(ch::of(pair.name, ch::kPairFrictionForce), "N", size_ + 1);
            size_ += 2;
        }
    }
    // What sensors switched (State::switches), each a channel too.
    if (!model.switches.empty()) {
        switchOffset_ = size_;
        switchCount_ = model.switches.size();
        for (const SwitchModel& k : model.switches)
            add((k.kind == SwitchKind::Slip || k.kind == SwitchKind::Slipping)
                    ? k.name
                    : ch::of(k.name, k.kind == SwitchKind::Held ? ch::kHeldValue : ch::kSwitchedOn),
                k.kind == SwitchKind::Slip ? "m" : "", size_++);
    }
    // How long each part has been at rest, or that it sleeps (State::rest): a run resumed at a
    // frame lets the same parts sleep at the same steps.
    if (model.contact.enabled && model.contact.settings.sleepTime > 0.0) {
        restOffset_ = size_;
        size_ += model.bodyCount();
    }
    // What expressions read of the previous step (State::lagged): the reactions and contact
    // forces of the step before the frame, which the frame's own channels do not hold.
    if (model.laggedCount > 0) {
        laggedOffset_ = size_;
        laggedCount_ = model.laggedCount;
        size_ += laggedCount_;
    }
    // An adaptive integrator's output lies inside a step: the step's start (t, then q, v and
    // the work accumulators), so a run resumed here goes on exactly (State::stepOrigin).
    if (stepOrigins && model.settings.integrator == IntegratorType::DormandPrince45) {
        originOffset_ = size_;
        size_ += 2 + nq_ + nv_ + 2;  // whether the frame names a step, its start time, its origin
    }
    // What the constraint solvers remember of singular positions passed (State::solverMemory),
    // so a run resumed here decides them as the original did.
    if (solverMemory) {
        memoryOffset_ = size_;
        memorySize_ = solverMemorySize(model, stepperMemory);
        size_ += memorySize_;
    }
    // The welded parts' own columns, last.
    for (Derived& d : derived_) {
        const int first = d.channel;
        d.offset = size_;
        for (int k = 0; k < 9; ++k) channels_[static_cast<std::size_t>(first + k)].offset = size_++;
    }
}

int FrameLayout::findChannel(const std::string& name) const {
    for (std::size_t k = 0; k < channels_.size(); ++k)
        if (channels_[k].name == name) return static_cast<int>(k);
    return -1;
}

namespace {

// Edit distance (insertions, deletions, substitutions and swaps of neighbours, Damerau's
// restricted form), case ignored; stops counting beyond `limit` (returns limit + 1).
std::size_t editDistance(const std::string& a, const std::string& b, std::size_t limit) {
    const std::size_t n = a.size(), m = b.size();
    if ((n > m ? n - m : m - n) > limit) return limit + 1;
    auto lower = [](char c) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    std::vector<std::size_t> before(m + 1), previous(m + 1), current(m + 1);
    for (std::size_t j = 0; j <= m; ++j) previous[j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        current[0] = i;
        std::size_t rowMin = current[0];
        for (std::size_t j = 1; j <= m; ++j) {
            const bool same = lower(a[i - 1]) == lower(b[j - 1]);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + !same});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
                lower(a[i - 2]) == lower(b[j - 1]))
                current[j] = std::min(current[j], before[j - 2] + 1);
            rowMin = std::min(rowMin, current[j]);
        }
        if (rowMin > limit) return limit + 1;
        std::swap(before, previous);
        std::swap(previous, current);
    }
    return previous[m];
}

std::string quoted(const std::string& name) {
    constexpr std::size_t kQuote = 60;  // a name from a file is quoted at most this long
    return "'" + (name.size() > kQuote ? name.substr(0, kQuote) + "..." : name) + "'";
}

}  // namespace

std::vector<std::string> closeChannelNames(const FrameLayout& layout, const std::string& name,
                                           std::size_t count) {
    // Close: within a third of the name's length in edits (at least 2), or of the same part or
    // joint (the text before the first '.') when nothing is that close.
    const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (const Channel& c : layout.channels())
        if (const std::size_t d = editDistance(name, c.name, limit); d <= limit)
            scored.emplace_back(d, c.name);
    if (scored.empty()) {
        const std::string owner = name.substr(0, name.find('.'));
        for (const Channel& c : layout.channels())
            if (!owner.empty() && c.name.substr(0, c.name.find('.')) == owner)
                scored.emplace_back(limit + 1, c.name);
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> names;
    for (std::size_t k = 0; k < scored.size() && k < count; ++k) names.push_back(scored[k].second);
    return names;
}

std::string unknownPlotChannels(const std::string& plotName,
                                const std::vector<std::string>& channels, const std::string& x,
                                const FrameLayout& layout) {
    constexpr std::size_t kNamed = 5;  // a file may name any number: the first few are said
    std::vector<std::string> used = channels;
    if (!x.empty()) used.push_back(x);
    std::string text;
    std::size_t unknown = 0;
    for (const std::string& channel : used) {
        if (layout.findChannel(channel) >= 0 || ++unknown > kNamed) continue;
        const std::vector<std::string> close = closeChannelNames(layout, channel);
        text += (unknown > 1 ? ", " : "") + quoted(channel);
        if (close.empty()) {
            text += " (no close name)";
            continue;
        }
        text += " (close: ";
        for (std::size_t k = 0; k < close.size(); ++k) text += (k ? ", " : "") + quoted(close[k]);
        text += ")";
    }
    if (unknown == 0) return "";
    return "plot " + quoted(plotName) + " names " + (unknown == 1 ? "a channel" : "channels") +
           " this run does not record: " + text +
           (unknown > kNamed ? " (" + std::to_string(unknown) + " in all)" : "");
}

void FrameLayout::encode(const State& s, const Outputs& o, double* row) const {
    if (originOffset_ >= 0) {
        const int n = nq_ + nv_ + 2;
        double* origin = row + originOffset_;
        const bool named = s.stepOrigin.size() == n;
        origin[0] = named ? 1.0 : 0.0;
        origin[1] = named ? s.stepStart : 0.0;
        for (int k = 0; k < n; ++k) origin[2 + k] = named ? s.stepOrigin(k) : 0.0;
    }
    if (memoryOffset_ >= 0) {
        double* memory = row + memoryOffset_;
        if (static_cast<int>(s.solverMemory.size()) == memorySize_)
            std::copy(s.solverMemory.begin(), s.solverMemory.end(), memory);
        else  // none: a best rank of −1 says so (KktSolver::saveMemory)
            std::fill(memory, memory + memorySize_, -1.0);
    }
    for (int k = 0; k < laggedCount_; ++k)
        row[laggedOffset_ + k] = k < s.lagged.size() ? s.lagged(k) : 0.0;
    if (switchOffset_ >= 0) {
        for (std::size_t k = 0; k < switchCount_; ++k)
            row[switchOffset_ + static_cast<int>(k)] = k < s.switches.size() ? s.switches[k] : 0.0;
    }
    if (restOffset_ >= 0) {
        const int bodies = nv_ / layout::kVelocitiesPerBody;
        for (int b = 0; b < bodies; ++b)
            row[restOffset_ + b] = static_cast<std::size_t>(b) < s.rest.size()
                                       ? s.rest[static_cast<std::size_t>(b)]
                                       : 0.0;
    }
    double* p = row;
    *p++ = s.t;
    p = std::copy(s.q.data(), s.q.data() + nq_, p);
    p = std::copy(s.v.data(), s.v.data() + nv_, p);
    *p++ = s.driverWork;
    *p++ = s.dissipatedEnergy;
    *p++ = s.stepHint;
    p = std::copy(s.jointCoordinates.data(), s.jointCoordinates.data() + nc_, p);
    for (int k = 0; k < nc_; ++k) *p++ = k < o.jointRates.size() ? o.jointRates(k) : 0.0;
    for (int b = 0; b < nv_ / layout::kVelocitiesPerBody; ++b) {
        const Vec3 w = bodyOrientation(s.q, b) * Vec3(layout::angular(s.v, b));
        *p++ = w.x();
        *p++ = w.y();
        *p++ = w.z();
    }
    for (int j = 0; j < joints_; ++j) {
        const JointReaction& r = o.reactions[static_cast<std::size_t>(j)];
        for (const Vec3* v : {&r.force_W, &r.torque_W, &r.force_J, &r.torque_J})
            p = std::copy(v->data(), v->data() + 3, p);
        *p++ = r.force_W.norm();
        *p++ = r.torque_W.norm();
    }
    for (int d = 0; d < drivers_; ++d) *p++ = o.driverEffort[static_cast<std::size_t>(d)];
    *p++ = o.energies.kinetic;
    *p++ = o.energies.gravitational;
    *p++ = o.energies.elastic;
    *p++ = o.constraintError;
    for (int k = 0; k < controllers_; ++k)
        *p++ = static_cast<std::size_t>(k) < o.controllerEffort.size()
                   ? o.controllerEffort[static_cast<std::size_t>(k)]
                   : 0.0;
    for (std::size_t k = 0; k < powerCoordinate_.size(); ++k) {
        const double effort =
            k < static_cast<std::size_t>(drivers_)
                ? o.driverEffort[k]
                : (k - drivers_ < o.controllerEffort.size() ? o.controllerEffort[k - drivers_]
                                                            : 0.0);
        const Eigen::Index c = powerCoordinate_[k];
        *p++ = c < o.jointRates.size() ? effort * o.jointRates(c) : 0.0;
    }
    for (int k = 0; k < limits_; ++k)
        *p++ = static_cast<std::size_t>(k) < o.limitForce.size()
                   ? o.limitForce[static_cast<std::size_t>(k)]
                   : 0.0;
    for (int k = 0; k < frictions_; ++k)
        *p++ = static_cast<std::size_t>(k) < o.frictionForce.size()
                   ? o.frictionForce[static_cast<std::size_t>(k)]
                   : 0.0;
    for (int k = 0; k < couplers_; ++k)
        for (const std::vector<double>* v : {&o.couplerForce, &o.couplerEffortI, &o.couplerEffortJ})
            *p++ =
                static_cast<std::size_t>(k) < v->size() ? (*v)[static_cast<std::size_t>(k)] : 0.0;
    for (int k = 0; k < springs_; ++k)
        for (const std::vector<double>* v : {&o.springForce, &o.springLength, &o.springRate})
            *p++ =
                static_cast<std::size_t>(k) < v->size() ? (*v)[static_cast<std::size_t>(k)] : 0.0;
    // Seen in moving frames.
    for (const auto& [f, X_PB] : frames_)
        for (const PartModel& part : seen_) {
            if (part.body == f) continue;
            const SeenInFrame seen = seenInFrame(X_PB, s.q, s.v, f, partMotion(part, s.q, s.v));
            for (const Vec3* e : {&seen.position, &seen.velocity, &seen.angularVelocity})
                p = std::copy(e->data(), e->data() + 3, p);
        }
    // The parts with columns of their own: their centre of mass and its velocity, their turn.
    for (const Derived& d : derived_) {
        const PartMotion m = partMotion(d.part, s.q, s.v);
        double* out = row + d.offset;
        for (const Vec3* e : {&m.com, &m.velocity, &m.angularVelocity})
            out = std::copy(e->data(), e->data() + 3, out);
    }
    if (!contact_) return;
    double normal = 0.0, depth = 0.0;
    for (const ContactForce& c : o.contacts) {
        normal += c.normalForce;
        depth = std::max(depth, c.depth);
    }
    *p++ = static_cast<double>(o.contacts.size());
    *p++ = normal;
    *p++ = depth;
    *p++ = o.contactSolver.iterations;
    *p++ = o.contactSolver.residual;
    *p++ = static_cast<double>(o.contactSolver.unconvergedSteps);
    for (const auto& [a, b] : contactPairs_) {
        double fn = 0.0;
        Vec3 ft = Vec3::Zero();
        for (const ContactForce& c : o.contacts) {
            const bool samePair = (c.partA == a && c.partB == b) || (c.partA == b && c.partB == a);
            if (!samePair) continue;
            fn += c.normalForce;
            ft += c.partA == a ? c.frictionForce_W : Vec3(-c.frictionForce_W);
        }
        *p++ = fn;
        *p++ = ft.norm();
    }
}

void FrameLayout::decode(const double* row, State& s, Outputs& o) const {
    s.stepOrigin.resize(0);
    s.unconvergedContactSteps = 0;
    s.solverMemory.clear();
    if (memoryOffset_ >= 0 && row[memoryOffset_] >= 0.0)
        s.solverMemory.assign(row + memoryOffset_, row + memoryOffset_ + memorySize_);
    if (originOffset_ >= 0 && row[originOffset_] == 1.0) {
        s.stepStart = row[originOffset_ + 1];
        s.stepOrigin = Eigen::Map<const Eigen::VectorXd>(row + originOffset_ + 2, nq_ + nv_ + 2);
    }
    s.lagged =
        laggedOffset_ >= 0
            ? Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(row + laggedOffset_, laggedCount_))
            : Eigen::VectorXd();
    s.switches.assign(row + std::max(switchOffset_, 0),
                      row + std::max(switchOffset_, 0) + static_cast<int>(switchCount_));
    s.rest.clear();
    if (restOffset_ >= 0)
        s.rest.assign(row + restOffset_, row + restOffset_ + nv_ / layout::kVelocitiesPerBody);
    const double* p = row;
    s.t = *p++;
    s.q = Eigen::Map<const Eigen::VectorXd>(p, nq_);
    p += nq_;
    s.v = Eigen::Map<const Eigen::VectorXd>(p, nv_);
    p += nv_;
    s.driverWork = *p++;
    s.dissipatedEnergy = *p++;
    s.stepHint = *p++;
    s.jointCoordinates = Eigen::Map<const Eigen::VectorXd>(p, nc_);
    p += nc_;
    o.t = s.t;
    o.jointCoordinates = s.jointCoordinates;
    o.jointRates = Eigen::Map<const Eigen::VectorXd>(p, nc_);
    p += nc_;
    p += nv_ / 2;  // world angular velocities: derived, for plots
    o.reactions.resize(static_cast<std::size_t>(joints_));
    for (JointReaction& r : o.reactions) {
        for (Vec3* v : {&r.force_W, &r.torque_W, &r.force_J, &r.torque_J}) {
            *v = Vec3(p[0], p[1], p[2]);
            p += 3;
        }
        p += 2;  // magnitudes: derived, for plots
    }
    o.driverEffort.assign(p, p + drivers_);
    p += drivers_;
    o.energies.kinetic = *p++;
    o.energies.gravitational = *p++;
    o.energies.elastic = *p++;
    o.energies.driverWork = s.driverWork;
    o.energies.dissipated = s.dissipatedEnergy;
    o.constraintError = *p++;
    o.controllerEffort.assign(p, p + controllers_);
    p += controllers_;
    p += powerCoordinate_.size();  // powers: derived, for plots
    o.limitForce.assign(p, p + limits_);
    p += limits_;
    o.frictionForce.assign(p, p + frictions_);
    p += frictions_;
    o.couplerForce.resize(static_cast<std::size_t>(couplers_));
    o.couplerEffortI.resize(static_cast<std::size_t>(couplers_));
    o.couplerEffortJ.resize(static_cast<std::size_t>(couplers_));
    for (std::size_t k = 0; k < static_cast<std::size_t>(couplers_); ++k) {
        o.couplerForce[k] = *p++;
        o.couplerEffortI[k] = *p++;
        o.couplerEffortJ[k] = *p++;
    }
    o.springForce.resize(static_cast<std::size_t>(springs_));
    o.springLength.resize(static_cast<std::size_t>(springs_));
    o.springRate.resize(static_cast<std::size_t>(springs_));
    for (std::size_t k = 0; k < static_cast<std::size_t>(springs_); ++k) {
        o.springForce[k] = *p++;
        o.springLength[k] = *p++;
        o.springRate[k] = *p++;
    }
    if (!frames_.empty())  // seen in moving frames: derived, for plots
        p += 9 * static_cast<int>(frames_.size()) * (nv_ / layout::kVelocitiesPerBody - 1);
    if (!contact_) return;
    // Counts are stored as doubles; a row read from a damaged run file may hold anything, so
    // they are clamped to their range before conversion (never undefined behaviour).
    auto count = [](double v) { return std::isfinite(v) ? std::clamp(v, 0.0, 2e9) : 0.0; };
    o.contactSolver.contacts = static_cast<int>(count(*p));
    p += 3;  // the force and depth totals: derived from the contact list
    o.contactSolver.iterations = static_cast<int>(count(*p++));
    o.contactSolver.residual = *p++;
    o.contactSolver.unconvergedSteps = static_cast<long>(count(*p++));
    s.unconvergedContactSteps = o.contactSolver.unconvergedSteps;
}

namespace {

// Frame k's contact forces and persistent contact points (none when the frame has none).
void readContacts(const std::vector<FrameContacts>& frames, std::size_t k, State& state,
                  Outputs& outputs) {
    if (k < frames.size()) {
        outputs.contacts = frames[k].forces;
        state.contacts = frames[k].persistent;
    } else {
        outputs.contacts.clear();
        state.contacts.clear();
    }
}

}  // namespace

Recording::Recording(const Model& model, RecordingOptions options)
    : layout_(model, options.stepOrigins, options.solverMemory, options.springChannels,
              options.stepperMemory),
      options_(options),
      recordEvery_(std::max(1, options.recordEvery)) {
    const std::size_t rowBytes =
        static_cast<std::size_t>(std::max(1, layout_.size())) * sizeof(double);
    while (chunkFrames_ > 1 && chunkFrames_ * rowBytes > options_.maxBytes / 16) chunkFrames_ /= 2;
}

const double* Recording::rowLocked(std::size_t frame) const {
    const std::size_t k = frame - first_;
    return chunks_[k / chunkFrames_].get() +
           (k % chunkFrames_) * static_cast<std::size_t>(layout_.size());
}

double* Recording::pushLocked() {
    const std::size_t k = frames_ - first_;
    if (k == chunks_.size() * chunkFrames_)
        chunks_.push_back(
            std::make_unique<double[]>(chunkFrames_ * static_cast<std::size_t>(layout_.size())));
    double* row = chunks_[k / chunkFrames_].get() +
                  (k % chunkFrames_) * static_cast<std::size_t>(layout_.size());
    ++frames_;
    return row;
}

void Recording::dropOldestChunkLocked() {
    chunks_.erase(chunks_.begin());
    const auto n = static_cast<std::ptrdiff_t>(chunkFrames_);
    times_.erase(times_.begin(), times_.begin() + n);
    if (layout_.hasContact()) {
        for (std::size_t k = 0; k < chunkFrames_; ++k) contactBytes_ -= contacts_[k].bytes();
        contacts_.erase(contacts_.begin(), contacts_.begin() + n);
    }
    first_ += chunkFrames_;
}

void Recording::decimateLocked() {
    // Keep frames 0, 2, 4, ... and the last one.
    const std::size_t n = frames_;
    const auto F = static_cast<std::size_t>(layout_.size());
    std::vector<std::unique_ptr<double[]>> old = std::move(chunks_);
    std::vector<double> oldTimes = std::move(times_);
    std::vector<FrameContacts> oldContacts = std::move(contacts_);
    chunks_.clear();
    times_.clear();
    contacts_.clear();
    contactBytes_ = 0;
    frames_ = 0;
    auto oldRow = [&](std::size_t k) {
        return old[k / chunkFrames_].get() + (k % chunkFrames_) * F;
    };
    for (std::size_t k = 0; k < n; ++k) {
        if (k % 2 != 0 && k + 1 != n) continue;
        std::memcpy(pushLocked(), oldRow(k), F * sizeof(double));
        times_.push_back(oldTimes[k]);
        if (k < oldContacts.size()) {
            contactBytes_ += oldContacts[k].bytes();
            contacts_.push_back(std::move(oldContacts[k]));
        }
    }
    previous_.clear();
    previousTimes_.clear();
    previousContacts_.clear();
}

Recording::Append Recording::append(const State& state, const Outputs& outputs, bool always) {
    const long counter = outputCounter_++;
    if (counter % recordEvery_ != 0 && !always) return Append::Skipped;
    std::unique_lock lock(mutex_);
    Append result = Append::Recorded;
    const std::size_t rowBytes = static_cast<std::size_t>(layout_.size()) * sizeof(double);
    // Memory grows a chunk at a time: check the limit when the next chunk is due.
    const bool newChunk = frames_ - first_ == chunks_.size() * chunkFrames_;
    FrameContacts frameContacts;
    if (layout_.hasContact()) frameContacts = {outputs.contacts, state.contacts};
    const std::size_t contactBytes = contactBytes_ + frameContacts.bytes();
    const auto full = [&] {
        return (chunks_.size() + 1) * chunkFrames_ * rowBytes + contactBytes > options_.maxBytes;
    };
    if (options_.policy == MemoryPolicy::DropOldest) {
        // Whole chunks go, oldest first; the chunk being filled always stays.
        while (newChunk && chunks_.size() > 1 && full()) dropOldestChunkLocked();
    } else if (frames_ > 2 && (newChunk || contactBytes > options_.maxBytes / 2) && full()) {
        if (options_.policy == MemoryPolicy::StopRun) return Append::Full;
        decimateLocked();
        recordEvery_ *= 2;
        outputCounter_ = 1;  // this output is recorded; the next recorded one is recordEvery_ later
        ++decimations_;
        result = Append::Decimated;
    }
    layout_.encode(state, outputs, pushLocked());
    times_.push_back(state.t);
    if (layout_.hasContact()) {
        contactBytes_ += frameContacts.bytes();
        contacts_.push_back(std::move(frameContacts));
    }
    return result;
}

void Recording::truncateAfter(std::size_t frame) {
    std::unique_lock lock(mutex_);
    if (frame + 1 >= frames_ || frame < first_) return;
    std::vector<std::vector<double>> previous;
    std::vector<double> previousTimes;
    std::vector<FrameContacts> previousContacts;
    for (std::size_t k = frame; k < frames_; ++k) {
        const double* row = rowLocked(k);
        previous.emplace_back(row, row + layout_.size());
        previousTimes.push_back(times_[k - first_]);
        if (k - first_ < contacts_.size()) {
            if (k == frame) {
                previousContacts.push_back(contacts_[k - first_]);  // frame stays in this run
            } else {
                contactBytes_ -= contacts_[k - first_].bytes();
                previousContacts.push_back(std::move(contacts_[k - first_]));
            }
        }
    }
    previous_ = std::move(previous);
    previousTimes_ = std::move(previousTimes);
    previousContacts_ = std::move(previousContacts);
    frames_ = frame + 1;
    times_.resize(frames_ - first_);
    if (layout_.hasContact()) contacts_.resize(frames_ - first_);
    chunks_.resize((frames_ - first_ + chunkFrames_ - 1) / chunkFrames_);
    outputCounter_ = 1;
}

std::size_t Recording::size() const {
    std::shared_lock lock(mutex_);
    return frames_;
}

std::size_t Recording::first() const {
    std::shared_lock lock(mutex_);
    return first_;
}

double Recording::time(std::size_t frame) const {
    std::shared_lock lock(mutex_);
    return frame < frames_ && frame >= first_ ? times_[frame - first_] : 0.0;
}

std::size_t Recording::frameAtOrBefore(double t) const {
    std::shared_lock lock(mutex_);
    const auto it = std::upper_bound(times_.begin(), times_.end(), t);
    return first_ + (it == times_.begin() ? 0 : static_cast<std::size_t>(it - times_.begin()) - 1);
}

bool Recording::read(std::size_t frame, State& state, Outputs& outputs) const {
    std::shared_lock lock(mutex_);
    if (frame >= frames_ || frame < first_) return false;
    layout_.decode(rowLocked(frame), state, outputs);
    const std::size_t k = frame - first_;
    readContacts(contacts_, k, state, outputs);
    return true;
}

void Recording::series(int channel, std::size_t first, std::size_t last, std::size_t stride,
                       std::vector<double>& times, std::vector<double>& values) const {
    std::shared_lock lock(mutex_);
    times.clear();
    values.clear();
    if (channel < 0 || channel >= static_cast<int>(layout_.channels().size())) return;
    const Channel& c = layout_.channels()[static_cast<std::size_t>(channel)];
    last = std::min(last, frames_);
    stride = std::max<std::size_t>(1, stride);
    for (std::size_t k = std::max(first, first_); k < last; k += stride) {
        times.push_back(times_[k - first_]);
        values.push_back(c.value(rowLocked(k)));
    }
}

bool Recording::hasPrevious() const {
    std::shared_lock lock(mutex_);
    return !previousTimes_.empty();
}

double Recording::previousFrom() const {
    std::shared_lock lock(mutex_);
    return previousTimes_.empty() ? 0.0 : previousTimes_.front();
}

double Recording::previousUntil() const {
    std::shared_lock lock(mutex_);
    return previousTimes_.empty() ? 0.0 : previousTimes_.back();
}

bool Recording::readPrevious(double t, State& state, Outputs& outputs) const {
    std::shared_lock lock(mutex_);
    const auto it = std::upper_bound(previousTimes_.begin(), previousTimes_.end(), t);
    if (it == previousTimes_.begin()) return false;
    const std::size_t k = static_cast<std::size_t>(it - previousTimes_.begin()) - 1;
    layout_.decode(previous_[k].data(), state, outputs);
    readContacts(previousContacts_, k, state, outputs);
    return true;
}

void Recording::previousSeries(int channel, std::size_t stride, std::vector<double>& times,
                               std::vector<double>& values) const {
    std::shared_lock lock(mutex_);
    times.clear();
    values.clear();
    if (channel < 0 || channel >= static_cast<int>(layout_.channels().size())) return;
    const Channel& c = layout_.channels()[static_cast<std::size_t>(channel)];
    stride = std::max<std::size_t>(1, stride);
    const std::size_t n = previous_.size();
    const auto take = [&](std::size_t k) {
        times.push_back(previousTimes_[k]);
        values.push_back(c.value(previous_[k].data()));
    };
    for (std::size_t k = 0; k < n; k += stride) take(k);
    if (n > 0 && (n - 1) % stride != 0) take(n - 1);
}

void Recording::discardPrevious() {
    std::unique_lock lock(mutex_);
    previous_.clear();
    previousTimes_.clear();
    previousContacts_.clear();
}

std::size_t Recording::bytes() const {
    std::shared_lock lock(mutex_);
    std::size_t b =
        chunks_.size() * chunkFrames_ * static_cast<std::size_t>(layout_.size()) * sizeof(double);
    b += times_.capacity() * sizeof(double);
    for (const auto& row : previous_) b += row.size() * sizeof(double);
    for (const FrameContacts& c : previousContacts_) b += c.bytes();
    b += contactBytes_ + contacts_.capacity() * sizeof(FrameContacts);
    return b;
}

int Recording::decimations() const {
    std::shared_lock lock(mutex_);
    return decimations_;
}

int Recording::recordEvery() const {
    std::shared_lock lock(mutex_);
    return recordEvery_;
}

}  // namespace engine
