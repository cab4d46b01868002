#include "engine/dynamics/joint_space.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/SVD>

#include "engine/constraints/constraints.h"
#include "engine/dynamics/dynamics.h"
#include "engine/dynamics/loop_closure.h"
#include "engine/kinematics/frame_motion.h"
#include "engine/kinematics/joint_coordinates.h"
#include "engine/kinematics/kinematics.h"
#include "engine/math/number_text.h"
#include "engine/model/diagnostic.h"
#include "engine/model/layout.h"

namespace engine {
namespace {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

// The spatial cross product of motions at the world origin, (ω, v) (Featherstone, ch. 2).
Vec6 crossMotion(const Vec6& V, const Vec6& m) {
    Vec6 out;
    out.head<3>() = V.head<3>().cross(m.head<3>());
    out.tail<3>() = V.head<3>().cross(m.tail<3>()) + V.tail<3>().cross(m.head<3>());
    return out;
}

// a b without renormalising the rotation (the recursions renormalise once per link).
Transform compose(const Transform& a, const Transform& b) {
    Transform out;
    out.R = a.R * b.R;
    out.p = a.p + a.R * b.p;
    return out;
}

// A turn's z axis (R's third column), without the whole rotation.
Vec3 zAxis(const Quat& R) {
    const double w = R.w(), x = R.x(), y = R.y(), z = R.z();
    return Vec3(2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y));
}

Quat turnZ(double angle) {
    return Quat(std::cos(0.5 * angle), 0.0, 0.0, std::sin(0.5 * angle));
}

// A quaternion stored (w, x, y, z) at e, made unit.
Quat unitQuat(const double* e) {
    Quat Q(e[0], e[1], e[2], e[3]);
    Q.coeffs() *= unitQuaternionScale(Q.squaredNorm());
    return Q;
}

// A universal joint at q = 0: marker I's z along J's x, I's x along J's z (so that its
// coordinates are the angles jointCoordinate measures: about J's pin, then about I's).
const Quat& universalTurn() {
    static const Quat turn = [] {
        Mat3 R;
        R << 0.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0, 0.0;
        return Quat(R);
    }();
    return turn;
}

// Marker I's pose in marker J's frame at the link's coordinates q[0, nq).
Transform jointTransform(const JointTree::Link& link, const double* q) {
    Transform X;
    switch (link.kind) {
    case LinkKind::Weld:
        X.R = link.R_JI0;
        break;
    case LinkKind::Revolute:
        X.R = turnZ(q[0]);
        break;
    case LinkKind::Prismatic:
        X.R = link.R_JI0;
        X.p.z() = q[0];
        break;
    case LinkKind::Cylindrical:
        X.R = turnZ(q[0]);
        X.p.z() = q[1];
        break;
    case LinkKind::Universal:
        X.R = turnZ(q[0]) * universalTurn() * turnZ(q[1]);
        break;
    case LinkKind::Spherical:
        X.R = unitQuat(q);
        break;
    case LinkKind::Planar:
        X.p << q[0], q[1], 0.0;
        X.R = turnZ(q[2]);
        break;
    case LinkKind::Free:
        X.p << q[0], q[1], q[2];
        X.R = unitQuat(q + 3);
        break;
    }
    return X;
}

// The link's own marker G in the world: the parent's marker F (X_WF) moved by the joint at
// coordinates q (marker I from marker J; reversed when the link's body holds marker J). A turn
// about z is composed by hand (a quaternion of w and z only).
Transform jointChild(const JointTree::Link& link, const Transform& X_WF, const double* q) {
    if (link.kind == LinkKind::Revolute) {
        Transform X_WG;
        const double c = std::cos(0.5 * q[0]),
                     s = link.childHoldsI ? std::sin(0.5 * q[0]) : -std::sin(0.5 * q[0]);
        const Quat& a = X_WF.R;
        X_WG.R = Quat(a.w() * c - a.z() * s, a.x() * c + a.y() * s, a.y() * c - a.x() * s,
                      a.z() * c + a.w() * s);
        X_WG.p = X_WF.p;
        return X_WG;
    }
    const Transform X_JI = jointTransform(link, q);
    return compose(X_WF, link.childHoldsI ? X_JI : X_JI.inverse());
}

// Whether a rate's column of the motion subspace is fixed in marker I's body (else in J's):
// a universal joint's second pin, a ball's and a free part's axes (its own), a planar
// joint's turn (about the axis through I's origin).
bool columnFixedInI(LinkKind kind, int d) {
    switch (kind) {
    case LinkKind::Universal:
        return d == 1;
    case LinkKind::Spherical:
        return true;
    case LinkKind::Free:
        return d >= 3;  // (its slides are along the world's axes: fixed in the ground)
    case LinkKind::Planar:
        return d == 2;
    default:
        return false;
    }
}

// The link's motion subspace at the world origin, one column per rate (s[0, nv)): the twist of
// marker I's body relative to J's at a unit rate, signed as the link's body moves relative to
// its parent, from markers J and I in the world.
void jointColumns(const JointTree::Link& link, const Transform& X_WJ, const Transform& X_WI,
                  Vec6* s) {
    const double sign = link.childHoldsI ? 1.0 : -1.0;
    auto turn = [sign](Vec6& column, const Vec3& axis, const Vec3& through) {
        column.head<3>() = sign * axis;
        column.tail<3>() = sign * through.cross(axis);
    };
    auto slide = [sign](Vec6& column, const Vec3& axis) {
        column.head<3>().setZero();
        column.tail<3>() = sign * axis;
    };
    switch (link.kind) {
    case LinkKind::Weld:
        return;
    case LinkKind::Revolute:
        turn(s[0], zAxis(X_WJ.R), X_WJ.p);
        return;
    case LinkKind::Prismatic:
        slide(s[0], zAxis(X_WJ.R));
        return;
    case LinkKind::Cylindrical: {
        const Vec3 z = zAxis(X_WJ.R);
        turn(s[0], z, X_WJ.p);
        slide(s[1], z);
        return;
    }
    case LinkKind::Universal:
        turn(s[0], zAxis(X_WJ.R), X_WJ.p);
        turn(s[1], zAxis(X_WI.R), X_WI.p);
        return;
    case LinkKind::Spherical: {
        const Mat3 R = X_WI.R.toRotationMatrix();
        for (int d = 0; d < 3; ++d) turn(s[d], R.col(d), X_WI.p);
        return;
    }
    case LinkKind::Planar: {
        const Mat3 R = X_WJ.R.toRotationMatrix();
        slide(s[0], R.col(0));
        slide(s[1], R.col(1));
        turn(s[2], R.col(2), X_WI.p);
        return;
    }
    case LinkKind::Free: {
        const Mat3 R = X_WI.R.toRotationMatrix();
        for (int d = 0; d < 3; ++d) {
            slide(s[d], Vec3::Unit(d));
            turn(s[3 + d], R.col(d), X_WI.p);
        }
        return;
    }
    }
}

const Transform& bodyPose(const std::vector<Transform>& poses, int body) {
    static const Transform world;
    return body == kGround ? world : poses[static_cast<std::size_t>(body)];
}

// Each link's pose X_WB, and its motion subspace s (per rate, the twist of a unit rate at the
// world origin).
void linkKinematics(const Model& model, const JointTree& tree, const Eigen::VectorXd& q,
                    std::vector<Transform>& poses, std::vector<Vec6>& s) {
    poses.assign(model.bodies.size(), Transform());
    s.resize(static_cast<std::size_t>(tree.nv));
    for (const JointTree::Link& link : tree.links) {
        const Transform X_WF = compose(bodyPose(poses, link.parentBody), link.X_PF);
        const Transform X_WG = jointChild(link, X_WF, q.data() + link.iq);
        Transform& X_WB = poses[static_cast<std::size_t>(link.body)];
        X_WB = compose(X_WG, link.X_GC);
        X_WB.R.normalize();
        const Transform& X_WJ = link.childHoldsI ? X_WF : X_WG;
        const Transform& X_WI = link.childHoldsI ? X_WG : X_WF;
        jointColumns(link, X_WJ, X_WI, s.data() + link.iv);
    }
}

// The velocity-product acceleration of a link, Ṡ q̇: each column's rate of change is the
// twist of the body it is fixed in (the link's, V, or its parent's, Vp) crossed with it.
Vec6 velocityProduct(const JointTree& tree, const JointTree::Link& link, const Vec6& V,
                     const Vec6& Vp, const std::vector<Vec6>& s, const Eigen::VectorXd& qd) {
    Vec6 c = Vec6::Zero();
    for (int e = link.iv; e < link.iv + link.nv; ++e)
        c += crossMotion(tree.rateOnChild[static_cast<std::size_t>(e)] ? V : Vp,
                         s[static_cast<std::size_t>(e)]) *
             qd(e);
    return c;
}

// Each link's twist at the world origin: its parent's and its joint's.
void linkVelocities(const JointTree& tree, const std::vector<Vec6>& s, const Eigen::VectorXd& qd,
                    std::vector<Vec6>& V) {
    V.resize(tree.links.size());
    for (std::size_t k = 0; k < tree.links.size(); ++k) {
        const JointTree::Link& link = tree.links[k];
        Vec6 twist = link.parent < 0 ? Vec6::Zero() : V[static_cast<std::size_t>(link.parent)];
        for (int e = link.iv; e < link.iv + link.nv; ++e)
            twist += s[static_cast<std::size_t>(e)] * qd(e);
        V[k] = twist;
    }
}

// The bodies' maximal state (State::q, State::v) from the links' poses and twists.
void writeBodyState(const Model& model, const JointTree& tree, const std::vector<Transform>& poses,
                    const std::vector<Vec6>& V, Eigen::VectorXd& q, Eigen::VectorXd& v) {
    q.resize(model.positionSize());
    v.resize(model.velocitySize());
    for (std::size_t k = 0; k < tree.links.size(); ++k) {
        const int b = tree.links[k].body;
        const Transform& X_WB = poses[static_cast<std::size_t>(b)];
        setBodyPose(q, b, X_WB);
        const Vec3 w = V[k].head<3>();
        layout::linear(v, b) = V[k].tail<3>() + w.cross(X_WB.p);
        layout::angular(v, b) = X_WB.R.conjugate() * w;
    }
}

// The link a joint of this type is on the tree, if it can be one.
std::optional<LinkKind> linkKindOf(JointType type) {
    switch (type) {
    case JointType::Fixed:
        return LinkKind::Weld;
    case JointType::Revolute:
        return LinkKind::Revolute;
    case JointType::Prismatic:
        return LinkKind::Prismatic;
    case JointType::Cylindrical:
        return LinkKind::Cylindrical;
    case JointType::Universal:
        return LinkKind::Universal;
    case JointType::Spherical:
        return LinkKind::Spherical;
    case JointType::Planar:
        return LinkKind::Planar;
    default:
        return std::nullopt;
    }
}

// A link's coordinates and rates.
std::pair<int, int> linkSize(LinkKind kind) {
    switch (kind) {
    case LinkKind::Weld:
        return {0, 0};
    case LinkKind::Revolute:
    case LinkKind::Prismatic:
        return {1, 1};
    case LinkKind::Cylindrical:
    case LinkKind::Universal:
        return {2, 2};
    case LinkKind::Spherical:
        return {4, 3};
    case LinkKind::Planar:
        return {3, 3};
    case LinkKind::Free:
        return {7, 6};
    }
    return {0, 0};
}

}  // namespace

std::optional<JointTree> buildJointTree(const Model& model, const State& state, std::string& why) {
    return buildJointTree(model, state.q, state.v, why, TreeScope::Whole);
}

std::optional<JointTree> buildJointTree(const Model& model, const Eigen::VectorXd& bodyQ,
                                        const Eigen::VectorXd& bodyV, std::string& why,
                                        TreeScope scope) {
    const bool whole = scope == TreeScope::Whole;
    if (!whole && !model.frameJoints.empty()) {
        why = "moving frames are not in a model-based controller's model (yet)";
        return std::nullopt;
    }
    if (!whole && model.softRows > 0) {
        why = "soft joints are not in a model-based controller's model (yet)";
        return std::nullopt;
    }
    if (!whole && !model.couplers.empty()) {
        why = "couplers are not in a model-based controller's model (yet)";
        return std::nullopt;
    }
    std::vector<BodyFrame> frames;
    computeBodyFrames(model, bodyQ, bodyV, frames);
    const std::vector<int> offsets = jointCoordinateOffsets(model);
    const int n = model.bodyCount();
    const std::size_t joints = model.joints.size();
    auto bodyOf = [&](int marker) { return model.markers[static_cast<std::size_t>(marker)].body; };

    // What a joint of the tree must be (a lower pair, assembled as the links' coordinates
    // measure it); the reason it cannot be one, else empty. Any other joint may still close a
    // loop: its rows are held as constraints (a cut joint).
    std::vector<std::string> notALink(joints);
    std::vector<Quat> turn(joints, Quat::Identity());  // a slide's or weld's exact turn of I from J
    for (std::size_t j = 0; j < joints; ++j) {
        const JointModel& joint = model.joints[j];
        if (joint.folded) {  // (a weld folded away: its parts are one body, no link)
            notALink[j] = "weld '" + joint.name + "' is folded into one body";
            continue;
        }
        if (joint.frameMotion) {  // (its part a root of its own, below)
            notALink[j] = "moving frame '" + joint.name + "'";
            continue;
        }
        if (joint.softRows > 0) {
            // Its soft equations pull as forces (evaluateAppliedForces); its exact ones, if any,
            // close a loop.
            notALink[j] = "joint '" + joint.name + "' is soft: its soft equations pull as forces";
            continue;
        }
        if (linkKindOf(joint.type) == std::nullopt || joint.curve || joint.surface) {
            notALink[j] = "joint '" + joint.name + "' is " +
                          std::string(jointTypeName(joint.type)) +
                          ": joint coordinates take lower pairs only on the tree (revolute, "
                          "prismatic, cylindrical, universal, spherical, planar, fixed; other "
                          "joints close its loops)";
            continue;
        }
        const MarkerFrame I = markerFrame(model, frames, joint.markerI);
        const MarkerFrame J = markerFrame(model, frames, joint.markerJ);
        const Mat3 R_JI = J.R.transpose() * I.R;
        if (joint.type == JointType::Prismatic || joint.type == JointType::Fixed) {
            // The turn the slide holds: its rows keep I's x along ±J's x and I's z along
            // ±J's z, so one of four exact turns (the nearest: the assembled branch).
            Mat3 R = Mat3::Zero();
            for (int d = 0; d < 3; ++d) R(d, d) = R_JI(d, d) < 0.0 ? -1.0 : 1.0;
            if (R.determinant() < 0.0)
                notALink[j] = "joint '" + joint.name +
                              "': its markers' axes are not held parallel or opposed (not "
                              "assembled?)";
            else
                turn[j] = Quat(R);
        } else if ((joint.type == JointType::Revolute || joint.type == JointType::Cylindrical ||
                    joint.type == JointType::Planar) &&
                   R_JI(2, 2) < 0.0) {
            notALink[j] = "joint '" + joint.name +
                          "' turns about axes that point opposite ways (marker I's z against "
                          "marker J's): joint coordinates take a joint whose markers' z axes "
                          "agree";
        }
    }

    // The spanning tree: the joints that can be links, taken in the scene's order (those a
    // motion drives first, so that a motion prescribes a coordinate rather than a row), each
    // joining two parts not yet connected; every other joint closes a loop. In the scene's
    // order, the joints cut are those whose rows the maximal formulation finds dependent on the
    // earlier ones, so both drop the same rows of a redundant loop (kkt_solver.h).
    std::vector<int> group(static_cast<std::size_t>(n) + 1);  // union–find; index n: the ground
    for (std::size_t b = 0; b < group.size(); ++b) group[b] = static_cast<int>(b);
    auto root = [&](int b) {
        while (group[static_cast<std::size_t>(b)] != b)
            b = group[static_cast<std::size_t>(b)] =
                group[static_cast<std::size_t>(group[static_cast<std::size_t>(b)])];
        return b;
    };
    auto node = [&](int body) { return body == kGround ? n : body; };
    std::vector<bool> driven(joints, false), inTree(joints, false);
    for (const DriverModel& driver : model.drivers)
        driven[static_cast<std::size_t>(driver.joint)] = true;
    // A moving frame joins its part to the ground first: a joint between the two closes a loop.
    for (const int j : model.frameJoints) {
        const int a = root(node(bodyOf(model.joints[static_cast<std::size_t>(j)].markerI)));
        if (a != n) group[static_cast<std::size_t>(a)] = n;
    }
    for (const bool drivenFirst : {true, false})
        for (std::size_t j = 0; j < joints; ++j) {
            if (driven[j] != drivenFirst || !notALink[j].empty()) continue;
            const JointModel& joint = model.joints[j];
            const int a = root(node(bodyOf(joint.markerI))), b = root(node(bodyOf(joint.markerJ)));
            if (a == b) continue;
            group[static_cast<std::size_t>(a)] = b;
            inTree[j] = true;
        }

    // The links, from the ground outwards (parents before children); a part no joint of the
    // tree reaches from the ground is a free part, the root of the parts joined to it.
    std::vector<int> linkOfBody(static_cast<std::size_t>(n), -1);
    auto reached = [&](int body) {
        return body == kGround || linkOfBody[static_cast<std::size_t>(body)] >= 0;
    };
    JointTree tree;
    auto add = [&](JointTree::Link link) {
        linkOfBody[static_cast<std::size_t>(link.body)] = tree.size();
        tree.links.push_back(link);
    };
    auto grow = [&] {
        for (bool grew = true; grew;) {
            grew = false;
            for (std::size_t j = 0; j < joints; ++j) {
                if (!inTree[j]) continue;
                const JointModel& joint = model.joints[j];
                const int bi = bodyOf(joint.markerI), bj = bodyOf(joint.markerJ);
                if (reached(bi) == reached(bj)) continue;  // both: a link already; neither: later
                grew = true;
                JointTree::Link link;
                link.joint = static_cast<int>(j);
                link.childHoldsI = !reached(bi);
                const MarkerModel& mi = model.markers[static_cast<std::size_t>(joint.markerI)];
                const MarkerModel& mj = model.markers[static_cast<std::size_t>(joint.markerJ)];
                const MarkerModel& child = link.childHoldsI ? mi : mj;
                const MarkerModel& parent = link.childHoldsI ? mj : mi;
                link.body = child.body;
                link.parentBody = parent.body;
                link.parent =
                    parent.body == kGround ? -1 : linkOfBody[static_cast<std::size_t>(parent.body)];
                link.kind = *linkKindOf(joint.type);
                link.welded = link.kind == LinkKind::Weld;
                link.X_PF = parent.X_BM;
                link.X_CM = child.X_BM;
                link.X_GC = child.X_BM.inverse();
                link.slot = offsets[j];
                link.R_JI0 = turn[j];
                add(link);
            }
        }
    };
    // The moving frames' parts: roots whose pose the frames prescribe.
    for (const int j : model.frameJoints) {
        const int b = bodyOf(model.joints[static_cast<std::size_t>(j)].markerI);
        if (b == kGround || reached(b)) continue;
        JointTree::Link link;
        link.body = b;
        link.kind = LinkKind::Free;
        link.joint = j;
        link.frame = true;
        add(link);
    }
    grow();
    for (int b = 0; b < n && whole; ++b) {
        if (reached(b)) continue;
        JointTree::Link link;
        link.body = b;
        link.kind = LinkKind::Free;
        add(link);
        grow();
    }
    // The cut joints: every joint not a link between parts of the tree.
    for (std::size_t j = 0; j < joints; ++j) {
        if (inTree[j] || model.joints[j].frameMotion || model.joints[j].folded) continue;
        const JointModel& joint = model.joints[j];
        const bool ri = reached(bodyOf(joint.markerI)), rj = reached(bodyOf(joint.markerJ));
        if (!ri && !rj) continue;  // (a controller's tree: a joint among the parts it leaves out)
        if (ri != rj) {            // (a controller's tree: a part it cannot model hangs from it)
            why = notALink[j];
            return std::nullopt;
        }
        if (!whole) {
            why = "joint '" + joint.name +
                  "' closes a loop: a model-based controller takes trees only (so far)";
            return std::nullopt;
        }
        if (joint.rows == 0) continue;  // (no equation: a cam that may lift off, held by its stop)
        tree.cuts.push_back(static_cast<int>(j));
        tree.cutRows += joint.rows;
    }
    tree.linkOfBody = std::move(linkOfBody);
    // The coordinates and rates, link by link.
    for (int k = 0; k < tree.size(); ++k) {
        JointTree::Link& link = tree.links[static_cast<std::size_t>(k)];
        const auto [nq, nv] = linkSize(link.kind);
        link.iq = tree.nq;
        link.nq = nq;
        link.iv = tree.nv;
        link.nv = nv;
        tree.nq += nq;
        tree.nv += nv;
        tree.coordinateLink.insert(tree.coordinateLink.end(), static_cast<std::size_t>(nq), k);
        tree.rateLink.insert(tree.rateLink.end(), static_cast<std::size_t>(nv), k);
        for (int d = 0; d < nv; ++d)
            tree.rateOnChild.push_back(columnFixedInI(link.kind, d) == link.childHoldsI ? 1 : 0);
    }
    tree.rateDriver.assign(static_cast<std::size_t>(tree.nv), -1);
    // The motions, each on its coordinate of the link of its joint.
    for (std::size_t d = 0; d < model.drivers.size(); ++d) {
        const DriverModel& driver = model.drivers[d];
        const JointModel& joint = model.joints[static_cast<std::size_t>(driver.joint)];
        if (whole && !inTree[static_cast<std::size_t>(driver.joint)]) {
            why = "motion '" + driver.name + "' drives joint '" + joint.name + "', which " +
                  (joint.softRows > 0 ? std::string("is soft") : "closes a loop of the tree") +
                  ": joint coordinates prescribe the coordinates of the tree's joints only (so "
                  "far)";
            return std::nullopt;
        }
        for (const JointTree::Link& link : tree.links) {
            if (link.joint != driver.joint) continue;
            if (link.kind == LinkKind::Spherical) {
                why = "motion '" + driver.name + "' drives ball joint '" + joint.name +
                      "' by its cone angle: joint coordinates prescribe the coordinates of "
                      "their own (a ball's is a quaternion)";
                return std::nullopt;
            }
            if (driver.coordinate < 0 || driver.coordinate >= link.nv) continue;
            int& slot = tree.rateDriver[static_cast<std::size_t>(link.iv + driver.coordinate)];
            if (slot >= 0) {
                why = "motions '" + model.drivers[static_cast<std::size_t>(slot)].name + "' and '" +
                      driver.name + "' both drive joint '" + joint.name + "'";
                return std::nullopt;
            }
            slot = static_cast<int>(d);
            if (link.nv > 1) tree.hybridMultiAxis = true;
        }
    }
    // Friction on a joint's reaction needs the reaction the joint transmits over a step: a link's.
    for (const JointFrictionModel& f : model.frictions)
        if (whole && (f.coefficient > 0.0 || f.staticCoefficient > 0.0) &&
            !inTree[static_cast<std::size_t>(f.joint)]) {
            why = "joint '" + model.joints[static_cast<std::size_t>(f.joint)].name + "' " +
                  (model.joints[static_cast<std::size_t>(f.joint)].softRows > 0 ? "is soft"
                                                                                : "closes a loop") +
                  " and has Coulomb friction μ on its reaction: joint coordinates take it on "
                  "the tree's joints only (so far)";
            return std::nullopt;
        }
    // The couplers: rows over the tree's coordinates.
    for (std::size_t k = 0; k < model.couplers.size(); ++k) {
        const CouplerModel& coupler = model.couplers[k];
        JointTree::CouplerRow row;
        row.coupler = static_cast<int>(k);
        for (const CouplerTermModel& term : coupler.terms) {
            const JointModel& joint = model.joints[static_cast<std::size_t>(term.joint)];
            const auto link =
                std::find_if(tree.links.begin(), tree.links.end(),
                             [&](const JointTree::Link& l) { return l.joint == term.joint; });
            if (link == tree.links.end()) {
                why = "coupler '" + coupler.name + "' couples joint '" + joint.name +
                      "', which closes a loop of the tree: joint coordinates couple the "
                      "coordinates of the tree's joints only (so far)";
                return std::nullopt;
            }
            if (link->kind == LinkKind::Spherical || term.coordinate < 0 ||
                term.coordinate >= link->nv) {
                why = "coupler '" + coupler.name + "' couples ball joint '" + joint.name +
                      "' by its cone angle, which is not one of its coordinates in joint "
                      "coordinates (a quaternion)";
                return std::nullopt;
            }
            row.coordinates.push_back(link->iq + term.coordinate);
            row.rates.push_back(link->iv + term.coordinate);
            row.coefficients.push_back(term.coefficient);
        }
        tree.couplerRows.push_back(std::move(row));
        ++tree.cutRows;
    }
    return tree;
}

int JointTree::freeParts() const {
    return static_cast<int>(
        std::count_if(links.begin(), links.end(), [](const Link& link) { return link.joint < 0; }));
}

int JointTree::movingFrames() const {
    return static_cast<int>(
        std::count_if(links.begin(), links.end(), [](const Link& link) { return link.frame; }));
}

bool JointTree::prescribed(const Model& model, int e) const {
    if (links[static_cast<std::size_t>(rateLink[static_cast<std::size_t>(e)])].frame) return true;
    const int d = rateDriver[static_cast<std::size_t>(e)];
    return d >= 0 && model.drivers[static_cast<std::size_t>(d)].on;
}

namespace {

// A moving frame's part at time t: its body's pose, the velocity of its origin and its turn rate
// (world axes), their rates: X_WB = M(t) X_MB, the body's origin at r_M + s (s = R_M p_MB).
struct FramePartMotion {
    Transform X_WB;
    Vec3 v, w, a, alpha;
};
FramePartMotion framePartAt(const Model& model, const JointTree::Link& link, double t) {
    const FrameMotionModel& motion =
        *model.joints[static_cast<std::size_t>(link.joint)].frameMotion;
    // (a step's end and the next step's start ask for the same instant: its expressions, their
    // rates and accelerations evaluated once)
    // (keyed by the compiled model's serial, unique in the process, and the frame's joint)
    struct Kept {
        std::uint64_t serial = 0;
        int joint = -1;
        double t = 0.0;
        FrameMotionState state;
    };
    thread_local Kept kept[4];
    thread_local unsigned next = 0;
    const FrameMotionState* found = nullptr;
    for (const Kept& k : kept)
        if (k.serial == model.serial && k.joint == link.joint && k.t == t) found = &k.state;
    if (!found || model.serial == 0) {
        Kept& slot = kept[next++ % 4];
        slot.serial = model.serial;
        slot.joint = link.joint;
        slot.t = t;
        slot.state = frameMotionAt(motion, t);
        found = &slot.state;
    }
    const FrameMotionState& m = *found;
    const Vec3 s = m.frame.R * motion.X_MB.p;
    FramePartMotion out;
    out.X_WB.R = Quat(m.frame.R * motion.X_MB.rotationMatrix());
    out.X_WB.R.normalize();
    out.X_WB.p = m.frame.r + s;
    out.v = m.frame.v + m.frame.w.cross(s);
    out.w = m.frame.w;
    out.a = m.acceleration + m.angularAcceleration.cross(s) + m.frame.w.cross(m.frame.w.cross(s));
    out.alpha = m.angularAcceleration;
    return out;
}

}  // namespace

void prescribeMotions(const Model& model, const JointTree& tree, double t,
                      Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> qd) {
    for (const JointTree::Link& link : tree.links) {
        if (!link.frame) continue;
        // (a free part's coordinates: its origin, its quaternion on the side of the one held,
        // the origin's velocity in the world's axes and the turn rate in its own)
        const FramePartMotion m = framePartAt(model, link, t);
        q.segment<3>(link.iq) = m.X_WB.p;
        const Eigen::Vector4d held = q.segment<4>(link.iq + 3);
        Eigen::Vector4d Q(m.X_WB.R.w(), m.X_WB.R.x(), m.X_WB.R.y(), m.X_WB.R.z());
        if (Q.dot(held) < 0.0) Q = -Q;
        q.segment<4>(link.iq + 3) = Q;
        qd.segment<3>(link.iv) = m.v;
        qd.segment<3>(link.iv + 3) = m.X_WB.R.conjugate() * m.w;
    }
    for (int e = 0; e < tree.nv; ++e) {
        const int d = tree.rateDriver[static_cast<std::size_t>(e)];
        if (d < 0) continue;
        const DriverModel& driver = model.drivers[static_cast<std::size_t>(d)];
        if (!driver.on) continue;
        const JointTree::Link& link =
            tree.links[static_cast<std::size_t>(tree.rateLink[static_cast<std::size_t>(e)])];
        const int c = e - link.iv;  // (the link's coordinates are its rates' integrals)
        const int i = link.iq + c;
        if (driver.level == MotionLevel::Position) {
            const double value = driver.f.eval(t);
            const JointModel& joint = model.joints[static_cast<std::size_t>(link.joint)];
            q(i) = joint.coordinates[static_cast<std::size_t>(c)] == JointAxis::Rotation
                       ? unwindAngle(value, q(i))
                       : value;
            qd(e) = driver.f.derivative(t);
        } else if (driver.level == MotionLevel::Velocity) {
            qd(e) = driver.f.eval(t);
        }
    }
}

void prescribedMeanRates(const Model& model, const JointTree& tree, double t1,
                         const Eigen::VectorXd& q, double h, Eigen::Ref<Eigen::VectorXd> qd) {
    thread_local Eigen::VectorXd ahead, aheadRates;
    ahead = q;
    aheadRates = qd;
    prescribeMotions(model, tree, t1, ahead, aheadRates);
    for (const JointTree::Link& link : tree.links) {
        if (!link.frame) continue;
        qd.segment<3>(link.iv) = (ahead.segment<3>(link.iq) - q.segment<3>(link.iq)) / h;
        // The turn θ with Q₁ = Q ⊗ exp(θ/2), in the part's axes.
        const Quat Q(q(link.iq + 3), q(link.iq + 4), q(link.iq + 5), q(link.iq + 6));
        const Quat Q1(ahead(link.iq + 3), ahead(link.iq + 4), ahead(link.iq + 5),
                      ahead(link.iq + 6));
        Quat d = Q.conjugate() * Q1;
        if (d.w() < 0.0) d.coeffs() = -d.coeffs();
        const Vec3 axis = d.vec();
        const double s = axis.norm();
        const Vec3 theta = s > 0.0 ? Vec3(axis * (2.0 * std::atan2(s, d.w()) / s)) : Vec3::Zero();
        qd.segment<3>(link.iv + 3) = theta / h;
    }
    for (int e = 0; e < tree.nv; ++e) {
        const int d = tree.rateDriver[static_cast<std::size_t>(e)];
        if (d < 0 || !model.drivers[static_cast<std::size_t>(d)].on) continue;
        const JointTree::Link& link =
            tree.links[static_cast<std::size_t>(tree.rateLink[static_cast<std::size_t>(e)])];
        const int i = link.iq + (e - link.iv);
        qd(e) = model.drivers[static_cast<std::size_t>(d)].level == MotionLevel::Position
                    ? (ahead(i) - q(i)) / h
                    : aheadRates(e);
    }
}

namespace {

// Quaternion product a ⊗ (0, w) / 2: a quaternion's rate for a turn rate w in its own axes.
Quat quaternionRate(const Quat& a, const Vec3& w) {
    const Quat product = a * Quat(0.0, w.x(), w.y(), w.z());
    return Quat(0.5 * product.w(), 0.5 * product.x(), 0.5 * product.y(), 0.5 * product.z());
}

void storeQuat(const Quat& Q, double* e) {
    e[0] = Q.w();
    e[1] = Q.x();
    e[2] = Q.y();
    e[3] = Q.z();
}

// exp(θ/2) of a turn θ (its axis times its angle).
Quat turnBy(const Vec3& theta) {
    const double angle = theta.norm();
    if (angle < 1e-8) {  // (series: exact to round-off there)
        const Vec3 half = 0.5 * theta;
        return Quat(1.0 - half.squaredNorm() / 2.0, half.x(), half.y(), half.z()).normalized();
    }
    const Vec3 axis = theta / angle;
    const double s = std::sin(0.5 * angle);
    return Quat(std::cos(0.5 * angle), s * axis.x(), s * axis.y(), s * axis.z());
}

}  // namespace

void jointCoordinateRates(const JointTree& tree, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                          Eigen::Ref<Eigen::VectorXd> qdot) {
    if (tree.nq == tree.nv) {
        qdot = v;
        return;
    }
    for (const JointTree::Link& link : tree.links) {
        if (link.kind == LinkKind::Spherical) {
            const Quat Q = unitQuat(q.data() + link.iq);
            storeQuat(quaternionRate(Q, v.segment<3>(link.iv)), qdot.data() + link.iq);
        } else if (link.kind == LinkKind::Free) {
            qdot.segment<3>(link.iq) = v.segment<3>(link.iv);
            storeQuat(quaternionRate(unitQuat(q.data() + link.iq + 3), v.segment<3>(link.iv + 3)),
                      qdot.data() + link.iq + 3);
        } else {
            qdot.segment(link.iq, link.nq) = v.segment(link.iv, link.nv);
        }
    }
}

void integrateJointCoordinates(const JointTree& tree, Eigen::Ref<Eigen::VectorXd> q,
                               const Eigen::VectorXd& v, double h) {
    if (tree.nq == tree.nv) {
        q += h * v;
        return;
    }
    for (const JointTree::Link& link : tree.links) {
        if (link.kind == LinkKind::Spherical) {
            const Quat Q = unitQuat(q.data() + link.iq) * turnBy(h * v.segment<3>(link.iv));
            storeQuat(Q.normalized(), q.data() + link.iq);
        } else if (link.kind == LinkKind::Free) {
            q.segment<3>(link.iq) += h * v.segment<3>(link.iv);
            const Quat Q = unitQuat(q.data() + link.iq + 3) * turnBy(h * v.segment<3>(link.iv + 3));
            storeQuat(Q.normalized(), q.data() + link.iq + 3);
        } else {
            q.segment(link.iq, link.nq) += h * v.segment(link.iv, link.nv);
        }
    }
}

namespace {

// The joint coordinates and rates of `state`, with what the recursions need there taken from
// the bodies' state as it is (not composed again from q): each body's pose, each link's motion
// subspace s and twist V at the world origin.
void linkStateFromBodies(const Model& model, const JointTree& tree, const Eigen::VectorXd& bodyQ,
                         const Eigen::VectorXd& bodyV, const Eigen::VectorXd& jointCoordinates,
                         Eigen::VectorXd& q, Eigen::VectorXd& qd, std::vector<Transform>& poses,
                         std::vector<Vec6>& s, std::vector<Vec6>& V) {
    q.resize(tree.nq);
    qd.resize(tree.nv);
    poses.assign(model.bodies.size(), Transform());
    s.assign(static_cast<std::size_t>(tree.nv), Vec6::Zero());
    V.resize(tree.links.size());
    for (int k = 0; k < tree.size(); ++k) {
        const std::size_t i = static_cast<std::size_t>(k);
        const JointTree::Link& link = tree.links[i];
        Transform& X_WB = poses[static_cast<std::size_t>(link.body)];
        X_WB.p = bodyPosition(bodyQ, link.body);
        X_WB.R = bodyOrientation(bodyQ, link.body);
        const Transform X_WF = compose(bodyPose(poses, link.parentBody), link.X_PF);
        const Transform X_WG = compose(X_WB, link.X_CM);
        const Transform& X_WJ = link.childHoldsI ? X_WF : X_WG;
        const Transform& X_WI = link.childHoldsI ? X_WG : X_WF;
        // The body's twist at the world origin, (ω, v − ω × r), and its parent's.
        const Vec3 w = X_WB.R * Vec3(layout::angular(bodyV, link.body));
        V[i].head<3>() = w;
        V[i].tail<3>() = Vec3(layout::linear(bodyV, link.body)) - w.cross(X_WB.p);
        jointColumns(link, X_WJ, X_WI, s.data() + link.iv);
        if (link.nv == 0) continue;
        // Marker I's twist relative to J's (at the world origin), and its pose in J's frame.
        const double sign = link.childHoldsI ? 1.0 : -1.0;
        const Vec6 dV =
            sign * (link.parent < 0 ? V[i] : Vec6(V[i] - V[static_cast<std::size_t>(link.parent)]));
        const Vec3 dw = dV.head<3>();
        double* qk = q.data() + link.iq;
        double* vk = qd.data() + link.iv;
        auto unwound = [&](double angle, int c) {
            return jointCoordinates.size() > link.slot + c
                       ? unwindAngle(angle, jointCoordinates(link.slot + c))
                       : angle;
        };
        auto aboutZ = [](const Quat& R) { return 2.0 * std::atan2(R.z(), R.w()); };
        if (link.kind == LinkKind::Revolute) {  // (the most common: only what it needs)
            qk[0] = unwound(aboutZ(X_WJ.R.conjugate() * X_WI.R), 0);
            vk[0] = zAxis(X_WJ.R).dot(dw);
            continue;
        }
        if (link.kind == LinkKind::Prismatic) {
            const Vec3 a = zAxis(X_WJ.R);
            qk[0] = a.dot(X_WI.p - X_WJ.p);
            vk[0] = a.dot(dV.tail<3>());
            continue;
        }
        const Vec3 dp = dV.tail<3>() + dw.cross(X_WI.p);  // I's origin's velocity
        const Quat R_JI = X_WJ.R.conjugate() * X_WI.R;
        const Vec3 p_JI = X_WJ.R.conjugate() * (X_WI.p - X_WJ.p);
        const Mat3 RJ = X_WJ.R.toRotationMatrix();
        switch (link.kind) {
        case LinkKind::Weld:
        case LinkKind::Revolute:
        case LinkKind::Prismatic:
            break;
        case LinkKind::Cylindrical:
            qk[0] = unwound(aboutZ(R_JI), 0);
            vk[0] = RJ.col(2).dot(dw);
            qk[1] = p_JI.z();
            vk[1] = RJ.col(2).dot(dV.tail<3>());
            break;
        case LinkKind::Universal: {
            const Vec3 zI = R_JI * Vec3::UnitZ(), xI = R_JI * Vec3::UnitX();
            qk[0] = unwound(std::atan2(zI.y(), zI.x()), 0);
            qk[1] = unwound(std::atan2(Vec3::UnitZ().cross(xI).dot(zI), xI.z()), 1);
            vk[0] = RJ.col(2).dot(dw);
            vk[1] = (X_WI.R * Vec3::UnitZ()).dot(dw);
            break;
        }
        case LinkKind::Spherical:
            storeQuat(R_JI, qk);
            qd.segment<3>(link.iv) = X_WI.R.conjugate() * dw;
            break;
        case LinkKind::Planar:
            qk[0] = p_JI.x();
            qk[1] = p_JI.y();
            qk[2] = unwound(aboutZ(R_JI), 2);
            vk[0] = RJ.col(0).dot(dp);
            vk[1] = RJ.col(1).dot(dp);
            vk[2] = RJ.col(2).dot(dw);
            break;
        case LinkKind::Free:
            q.segment<3>(link.iq) = X_WI.p;
            storeQuat(X_WI.R, qk + 3);
            qd.segment<3>(link.iv) = dp;
            qd.segment<3>(link.iv + 3) = X_WI.R.conjugate() * dw;
            break;
        }
    }
}

}  // namespace

void jointSpaceState(const Model& model, const JointTree& tree, const State& state,
                     Eigen::VectorXd& q, Eigen::VectorXd& qd) {
    thread_local std::vector<Transform> poses;
    thread_local std::vector<Vec6> s, V;
    linkStateFromBodies(model, tree, state.q, state.v, state.jointCoordinates, q, qd, poses, s, V);
}

void bodyStateFromJoints(const Model& model, const JointTree& tree, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd, State& state) {
    thread_local std::vector<Transform> poses;
    thread_local std::vector<Vec6> s, V;
    linkKinematics(model, tree, q, poses, s);
    linkVelocities(tree, s, qd, V);
    writeBodyState(model, tree, poses, V, state.q, state.v);
    if (state.jointCoordinates.size() != model.jointCoordinateCount)
        state.jointCoordinates = Eigen::VectorXd::Zero(model.jointCoordinateCount);
    // The links' joints' coordinates are theirs (a ball's cone angle, between the markers' z
    // axes, from its quaternion).
    for (const JointTree::Link& link : tree.links) {
        if (link.slot < 0 || link.nq == 0) continue;
        if (link.kind == LinkKind::Spherical) {
            const Vec3 z = unitQuat(q.data() + link.iq) * Vec3::UnitZ();
            state.jointCoordinates(link.slot) = std::atan2(z.head<2>().norm(), z.z());
            continue;
        }
        for (int c = 0; c < link.nq; ++c) state.jointCoordinates(link.slot + c) = q(link.iq + c);
    }
    if (!tree.closed()) return;
    // The cut joints' coordinates, measured (angles unwound from their last values).
    thread_local std::vector<BodyFrame> frames;
    computeBodyFrames(model, state.q, state.v, frames);
    const std::vector<int> offsets = jointCoordinateOffsets(model);
    for (const int j : tree.cuts) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
        for (int c = 0; c < static_cast<int>(joint.coordinates.size()); ++c) {
            const Eigen::Index slot = offsets[static_cast<std::size_t>(j)] + c;
            const double value = jointCoordinateValue(model, frames, j, c);
            state.jointCoordinates(slot) =
                joint.coordinates[static_cast<std::size_t>(c)] == JointAxis::Rotation
                    ? unwindAngle(value, state.jointCoordinates(slot))
                    : value;
        }
    }
}

namespace {

// The applied forces at the bodies' state for coordinates q, q̇ into ws.g: gravity and the
// force elements (with the gyroscopic term, which the velocity products of the recursions hold:
// bodyBias cancels it).
// ws.frames then hold the bodies' frames.
Status evaluateTreeForces(const Model& model, const JointTree& tree, double t,
                          const std::vector<Transform>& poses, const std::vector<Vec6>& V,
                          const State& memory, Workspace& ws) {
    thread_local Eigen::VectorXd q, v;
    writeBodyState(model, tree, poses, V, q, v);
    return evaluateAppliedForces(model, t, q, v, memory.jointCoordinates, memory.lagged, ws);
}

// Body `b`'s velocity-product force less its applied forces, V ×* (I V) − wᵃ, about the world
// origin, with ws.g holding its applied force f (at the centre of mass c) and torque (body axes)
// less the gyroscopic term ω × I ω, as the maximal formulation's right-hand side holds them. With
// L = m v_c the momentum, V ×* (I V) = (ω × I_c ω + c × (ω × L), ω × L) and the applied wrench
// is (R n + ω × I_c ω + c × f, f): the gyroscopic terms cancel, leaving (c × F − R n, F) with
// F = ω × L − f.
Vec6 bodyBias(const Model& model, const Workspace& ws, int b, const Transform& X_WB, const Mat3& R,
              const Vec6& V) {
    const double m = model.bodies[static_cast<std::size_t>(b)].mass;
    const Vec3 w = V.head<3>();
    const Vec3 vc = V.tail<3>() + w.cross(X_WB.p);
    const Vec3 F = m * w.cross(vc) - layout::linear(ws.g, b);
    Vec6 out;
    out.head<3>() = X_WB.p.cross(F) - R * layout::angular(ws.g, b);
    out.tail<3>() = F;
    return out;
}

// Body `b`'s spatial inertia about the world origin at pose X_WB (rotation matrix R): the
// principal inertia turned to the world, I_c = R diag(J) Rᵀ, moved to the origin.
// (Written in place: returned by value, a 6 × 6 matrix is copied with a string move that costs
// as much as building it.)
void bodyInertia(const Model& model, int b, const Transform& X_WB, const Mat3& R, Mat6& I) {
    const BodyModel& body = model.bodies[static_cast<std::size_t>(b)];
    const double m = body.mass;
    const Vec3& c = X_WB.p;
    Mat3 Ic;
    Ic.noalias() = (R * body.inertia.asDiagonal()) * R.transpose();
    // Ic + m C Cᵀ with C = c̃, C Cᵀ = (c·c) 1 − c cᵀ; m C above, m Cᵀ below; m 1.
    const double cc = c.squaredNorm();
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) I(i, j) = Ic(i, j) + m * ((i == j ? cc : 0.0) - c(i) * c(j));
    const Vec3 mc = m * c;
    I(0, 3) = 0.0, I(0, 4) = -mc.z(), I(0, 5) = mc.y();
    I(1, 3) = mc.z(), I(1, 4) = 0.0, I(1, 5) = -mc.x();
    I(2, 3) = -mc.y(), I(2, 4) = mc.x(), I(2, 5) = 0.0;
    I.bottomLeftCorner<3, 3>() = I.topRightCorner<3, 3>().transpose();
    I.bottomRightCorner<3, 3>() = m * Mat3::Identity();
}
Mat6 bodyInertia(const Model& model, int b, const Transform& X_WB, const Mat3& R) {
    Mat6 I;
    bodyInertia(model, b, X_WB, R, I);
    return I;
}

// The accelerations the motions prescribe, per rate (NaN: free).
Status prescribedAccelerations(const Model& model, const JointTree& tree, double t,
                               std::vector<double>& given) {
    given.assign(static_cast<std::size_t>(tree.nv), std::numeric_limits<double>::quiet_NaN());
    for (const JointTree::Link& link : tree.links) {
        if (!link.frame) continue;
        // (the rates' derivatives: the origin's acceleration, the turn rate's in the part's axes,
        // R_Bᵀ α)
        const FramePartMotion m = framePartAt(model, link, t);
        const Vec3 alpha = m.X_WB.R.conjugate() * m.alpha;
        for (int k = 0; k < 3; ++k) {
            given[static_cast<std::size_t>(link.iv + k)] = m.a(k);
            given[static_cast<std::size_t>(link.iv + 3 + k)] = alpha(k);
        }
        for (int k = 0; k < 6; ++k)
            if (!std::isfinite(given[static_cast<std::size_t>(link.iv + k)])) {
                const JointModel& joint = model.joints[static_cast<std::size_t>(link.joint)];
                return Status::failure(
                    "moving frame '" + joint.name +
                        "': its acceleration is not a number at t = " + timeText(t),
                    {joint.id}, Cause::NotFinite);
            }
    }
    for (int e = 0; e < tree.nv; ++e) {
        const int d = tree.rateDriver[static_cast<std::size_t>(e)];
        if (d < 0 || !model.drivers[static_cast<std::size_t>(d)].on) continue;
        const DriverModel& driver = model.drivers[static_cast<std::size_t>(d)];
        double& a = given[static_cast<std::size_t>(e)];
        a = driver.level == MotionLevel::Position   ? driver.f.secondDerivative(t)
            : driver.level == MotionLevel::Velocity ? driver.f.derivative(t)
                                                    : driver.f.eval(t);
        if (!std::isfinite(a))
            return Status::failure("motion '" + driver.name + "': its acceleration is " +
                                       numberText(a) + " at t = " + timeText(t) + " (" +
                                       driver.f.text() + ")",
                                   {driver.id}, Cause::NotFinite);
    }
    return {};
}

// What a link is called in a message: its joint, or its part where it is free.
std::string linkName(const Model& model, const JointTree::Link& link) {
    if (link.frame)
        return "moving frame '" + model.joints[static_cast<std::size_t>(link.joint)].name + "'";
    return link.joint >= 0
               ? "joint '" + model.joints[static_cast<std::size_t>(link.joint)].name + "'"
               : "free part '" + model.bodies[static_cast<std::size_t>(link.body)].name + "'";
}

using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
using VecD = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

// The articulated-body algorithm's passes at the links' poses, motion subspaces and twists,
// with the applied forces evaluated at the bodies' state (bodyQ, bodyV) that they describe.
// A one-axis link's D = sᵀ Iᴬ s is a number; a multi-axis link's a d × d matrix, inverted
// (its motions are taken by the mass-matrix path: tree.hybridMultiAxis).
Status articulatedPasses(const Model& model, const JointTree& tree, double t,
                         const Eigen::VectorXd& qd, const std::vector<Transform>& poses,
                         const std::vector<Vec6>& s, const std::vector<Vec6>& V,
                         const Eigen::VectorXd& bodyQ, const Eigen::VectorXd& bodyV,
                         const State& memory, Workspace& ws, Eigen::VectorXd& qdd) {
    const int n = tree.size();
    thread_local std::vector<Vec6> c, pA, U, A;
    thread_local std::vector<Mat6> IA;
    thread_local std::vector<double> D, u;
    thread_local std::vector<MatD> Dinv;
    if (Status st = evaluateAppliedForces(model, t, bodyQ, bodyV, memory.jointCoordinates,
                                          memory.lagged, ws);
        !st.ok)
        return st;
    const std::size_t size = static_cast<std::size_t>(n);
    const std::size_t rates = static_cast<std::size_t>(tree.nv);
    c.resize(size);
    pA.resize(size);
    A.resize(size);
    IA.resize(size);
    D.resize(size);
    Dinv.resize(size);
    U.resize(rates);
    u.resize(rates);
    // Outward: velocities, velocity-product accelerations, the bodies' own inertias and bias
    // forces.
    for (std::size_t i = 0; i < size; ++i) {
        const JointTree::Link& link = tree.links[i];
        const Transform& X_WB = poses[static_cast<std::size_t>(link.body)];
        const Mat3& R = ws.frames[static_cast<std::size_t>(link.body)].R;
        if (link.nv == 1)
            c[i] = crossMotion(V[i], s[static_cast<std::size_t>(link.iv)]) * qd(link.iv);
        else if (link.nv == 0)
            c[i].setZero();
        else
            c[i] = velocityProduct(
                tree, link, V[i],
                link.parent < 0 ? Vec6::Zero().eval() : V[static_cast<std::size_t>(link.parent)], s,
                qd);
        bodyInertia(model, link.body, X_WB, R, IA[i]);
        pA[i] = bodyBias(model, ws, link.body, X_WB, R, V[i]);
    }
    // Inward: each link's articulated inertia and bias force handed to its parent.
    thread_local std::vector<double> given;
    if (Status st = prescribedAccelerations(model, tree, t, given); !st.ok) return st;
    // (a link whose every rate is prescribed: a one-axis link a motion drives, a moving frame)
    auto givenWhole = [&](const JointTree::Link& link) {
        if (link.nv == 0) return false;
        for (int e = link.iv; e < link.iv + link.nv; ++e)
            if (std::isnan(given[static_cast<std::size_t>(e)])) return false;
        return true;
    };
    auto givenAcceleration = [&](const JointTree::Link& link) {
        Vec6 a = Vec6::Zero();
        for (int e = link.iv; e < link.iv + link.nv; ++e)
            a += s[static_cast<std::size_t>(e)] * given[static_cast<std::size_t>(e)];
        return a;
    };
    for (std::size_t k = size; k-- > 0;) {
        const JointTree::Link& link = tree.links[k];
        const int p = link.parent;
        const std::size_t e = static_cast<std::size_t>(link.iv);
        if (link.nv == 0 || givenWhole(link)) {
            // Welded, or prescribed: handed to its parent whole.
            if (p >= 0) {
                IA[static_cast<std::size_t>(p)] += IA[k];
                const Vec6 a = link.nv == 0 ? c[k] : Vec6(c[k] + givenAcceleration(link));
                pA[static_cast<std::size_t>(p)] += pA[k] + IA[k] * a;
            }
            continue;
        }
        if (link.nv == 1) {
            U[e].noalias() = IA[k] * s[e];
            D[k] = s[e].dot(U[e]);
            u[e] = -s[e].dot(pA[k]);
            if (!(D[k] > 0.0))
                return Status::failure(linkName(model, link) +
                                       " carries no inertia along its axis at t = " + timeText(t));
            if (p >= 0) {
                // Iᵃ = Iᴬ − U Uᵀ/D and pᵃ = pᴬ + Iᵃ c + U u/D = pᴬ + Iᴬ c + U (u − U·c)/D,
                // added to the parent's column by column without forming Iᵃ.
                Mat6& IAp = IA[static_cast<std::size_t>(p)];
                const Vec6 Ud = U[e] / D[k];
                pA[static_cast<std::size_t>(p)].noalias() +=
                    pA[k] + IA[k] * c[k] + Ud * (u[e] - U[e].dot(c[k]));
                for (int j = 0; j < 6; ++j) IAp.col(j) += IA[k].col(j) - Ud * U[e](j);
            }
            continue;
        }
        const int nv = link.nv;
        MatD Dk(nv, nv);
        for (int a = 0; a < nv; ++a) {
            U[e + static_cast<std::size_t>(a)] = IA[k] * s[e + static_cast<std::size_t>(a)];
            u[e + static_cast<std::size_t>(a)] = -s[e + static_cast<std::size_t>(a)].dot(pA[k]);
        }
        for (int a = 0; a < nv; ++a)
            for (int b = 0; b < nv; ++b)
                Dk(a, b) =
                    s[e + static_cast<std::size_t>(a)].dot(U[e + static_cast<std::size_t>(b)]);
        const Eigen::LLT<MatD> llt(Dk);
        if (llt.info() != Eigen::Success)
            return Status::failure(linkName(model, link) +
                                   " carries no inertia along some of its axes at t = " +
                                   timeText(t) + " (a part of no mass, or no rotational inertia)");
        Dinv[k] = llt.solve(MatD::Identity(nv, nv));
        if (p >= 0) {
            // Iᵃ = Iᴬ − U D⁻¹ Uᵀ, pᵃ = pᴬ + Iᵃ c + U D⁻¹ u.
            Mat6 Ia = IA[k];
            VecD uk(nv);
            for (int a = 0; a < nv; ++a) uk(a) = u[e + static_cast<std::size_t>(a)];
            const VecD Du = Dinv[k] * uk;
            Vec6 bias = pA[k];
            for (int a = 0; a < nv; ++a) {
                const std::size_t ea = e + static_cast<std::size_t>(a);
                Vec6 UD = Vec6::Zero();
                for (int b = 0; b < nv; ++b)
                    UD += U[e + static_cast<std::size_t>(b)] * Dinv[k](b, a);
                Ia -= UD * U[ea].transpose();
                bias += U[ea] * Du(a);
            }
            IA[static_cast<std::size_t>(p)] += Ia;
            pA[static_cast<std::size_t>(p)] += bias + Ia * c[k];
        }
    }
    // Outward: the accelerations.
    qdd.resize(tree.nv);
    for (std::size_t i = 0; i < size; ++i) {
        const JointTree::Link& link = tree.links[i];
        const int p = link.parent;
        const Vec6 a = (p < 0 ? Vec6::Zero() : A[static_cast<std::size_t>(p)]) + c[i];
        const int e = link.iv;
        const std::size_t ue = static_cast<std::size_t>(e);
        if (link.nv == 0) {
            A[i] = a;
        } else if (givenWhole(link)) {
            // Prescribed: the generalised forces the motion (or the moving frame) exerts for
            // it, and their power.
            A[i] = a + givenAcceleration(link);
            const Vec6 transmitted = IA[i] * A[i] + pA[i];
            for (int r = e; r < e + link.nv; ++r) {
                qdd(r) = given[static_cast<std::size_t>(r)];
                const double force = s[static_cast<std::size_t>(r)].dot(transmitted);
                ws.forceEnergies.actuatorPower += force * qd(r);
                ws.forceEnergies.motionPowerRate += force * qdd(r);
            }
        } else if (link.nv == 1) {
            qdd(e) = (u[ue] - U[ue].dot(a)) / D[i];
            A[i] = a + s[ue] * qdd(e);
        } else {
            VecD r(link.nv);
            for (int b = 0; b < link.nv; ++b)
                r(b) = u[ue + static_cast<std::size_t>(b)] -
                       U[ue + static_cast<std::size_t>(b)].dot(a);
            qdd.segment(e, link.nv) = Dinv[i] * r;
            A[i] = a;
            for (int b = 0; b < link.nv; ++b)
                A[i] += s[ue + static_cast<std::size_t>(b)] * qdd(e + b);
        }
    }
    return {};
}

}  // namespace

namespace {
// What the cut joints' rows exert at a closed tree's accelerations: their multipliers (one per
// cut row, 0 for the rows dropped) and the spatial force on each body about the world origin.
struct LoopForces {
    Eigen::VectorXd lambda;
    std::vector<Vec6> onBody;  // per body
};
Status loopAccelerations(const Model& model, const JointTree& tree, double t,
                         const Eigen::VectorXd& qd, const std::vector<Transform>& poses,
                         const std::vector<Vec6>& s, const std::vector<Vec6>& V,
                         const Eigen::VectorXd& bodyQ, const Eigen::VectorXd& bodyV,
                         const State& memory, Workspace& ws, Eigen::VectorXd& qdd,
                         LoopForces* forces = nullptr);
}  // namespace

Status articulatedAccelerations(const Model& model, const JointTree& tree, double t,
                                const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                                const State& memory, Workspace& ws, Eigen::VectorXd& qdd) {
    thread_local std::vector<Transform> poses;
    thread_local std::vector<Vec6> s, V;
    thread_local Eigen::VectorXd bodyQ, bodyV;
    linkKinematics(model, tree, q, poses, s);
    linkVelocities(tree, s, qd, V);
    writeBodyState(model, tree, poses, V, bodyQ, bodyV);
    if (tree.closed() || tree.hybridMultiAxis)
        return loopAccelerations(model, tree, t, qd, poses, s, V, bodyQ, bodyV, memory, ws, qdd);
    return articulatedPasses(model, tree, t, qd, poses, s, V, bodyQ, bodyV, memory, ws, qdd);
}

Status articulatedAccelerationsAt(const Model& model, const JointTree& tree, const State& state,
                                  Eigen::VectorXd& q, Eigen::VectorXd& qd, Workspace& ws,
                                  Eigen::VectorXd& qdd, Eigen::VectorXd* cutMultipliers) {
    thread_local std::vector<Transform> poses;
    thread_local std::vector<Vec6> s, V;
    linkStateFromBodies(model, tree, state.q, state.v, state.jointCoordinates, q, qd, poses, s, V);
    if (tree.closed() || tree.hybridMultiAxis) {
        thread_local LoopForces loops;
        const Status st = loopAccelerations(model, tree, state.t, qd, poses, s, V, state.q, state.v,
                                            state, ws, qdd, cutMultipliers ? &loops : nullptr);
        if (cutMultipliers) *cutMultipliers = loops.lambda;
        return st;
    }
    return articulatedPasses(model, tree, state.t, qd, poses, s, V, state.q, state.v, state, ws,
                             qdd);
}

namespace {

// M from the composite inertias Ic: each rate's column down the path to the root.
void compositeMassMatrix(const JointTree& tree, const std::vector<Mat6>& Ic,
                         const std::vector<Vec6>& s, Eigen::MatrixXd& M) {
    M.setZero(tree.nv, tree.nv);
    for (int k = 0; k < tree.size(); ++k) {
        const JointTree::Link& link = tree.links[static_cast<std::size_t>(k)];
        for (int e = link.iv; e < link.iv + link.nv; ++e) {
            const Vec6 f = Ic[static_cast<std::size_t>(k)] * s[static_cast<std::size_t>(e)];
            for (int e2 = link.iv; e2 <= e; ++e2)
                M(e2, e) = M(e, e2) = s[static_cast<std::size_t>(e2)].dot(f);
            for (int j = link.parent; j >= 0; j = tree.links[static_cast<std::size_t>(j)].parent) {
                const JointTree::Link& up = tree.links[static_cast<std::size_t>(j)];
                for (int e2 = up.iv; e2 < up.iv + up.nv; ++e2)
                    M(e2, e) = M(e, e2) = s[static_cast<std::size_t>(e2)].dot(f);
            }
        }
    }
}

// M(q) by the composite-rigid-body algorithm and h(q, q̇) by the recursive Newton–Euler
// algorithm (q̈ = 0) at the links' poses, motion subspaces s and twists V, with the applied
// forces in ws.g; G(q), gravity's share of h, when asked for. (Rows and columns per rate.)
void massAndBias(const Model& model, const JointTree& tree, const std::vector<Transform>& poses,
                 const std::vector<Vec6>& s, const std::vector<Vec6>& V, const Eigen::VectorXd& qd,
                 const Workspace& ws, Eigen::MatrixXd& M, Eigen::VectorXd& h, Eigen::VectorXd* G) {
    const int n = tree.size();
    // Outward: velocity-product accelerations; each body's force that q̈ = 0 needs.
    thread_local std::vector<Vec6> A, F, Fg;
    thread_local std::vector<Mat6> I, Ic;
    A.resize(static_cast<std::size_t>(n));
    F.resize(static_cast<std::size_t>(n));
    Fg.resize(static_cast<std::size_t>(G ? n : 0));
    I.resize(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
        const std::size_t i = static_cast<std::size_t>(k);
        const JointTree::Link& link = tree.links[i];
        const Transform& X_WB = poses[static_cast<std::size_t>(link.body)];
        const Mat3 R = X_WB.rotationMatrix();
        bodyInertia(model, link.body, X_WB, R, I[i]);
        const Vec6 Ap = link.parent < 0 ? Vec6::Zero() : A[static_cast<std::size_t>(link.parent)];
        const Vec6 Vp = link.parent < 0 ? Vec6::Zero() : V[static_cast<std::size_t>(link.parent)];
        A[i] = Ap + velocityProduct(tree, link, V[i], Vp, s, qd);
        F[i] = I[i] * A[i] + bodyBias(model, ws, link.body, X_WB, R, V[i]);
        if (G) {  // the weight m g at the centre of mass, held
            const Vec3 weight =
                model.bodies[static_cast<std::size_t>(link.body)].mass * model.gravity;
            Fg[i].head<3>() = -X_WB.p.cross(weight);
            Fg[i].tail<3>() = -weight;
        }
    }
    // Inward: the generalised forces, and the composite inertias.
    h.resize(tree.nv);
    if (G) G->resize(tree.nv);
    Ic = I;
    for (int k = n - 1; k >= 0; --k) {
        const std::size_t i = static_cast<std::size_t>(k);
        const JointTree::Link& link = tree.links[i];
        for (int e = link.iv; e < link.iv + link.nv; ++e) {
            h(e) = s[static_cast<std::size_t>(e)].dot(F[i]);
            if (G) (*G)(e) = s[static_cast<std::size_t>(e)].dot(Fg[i]);
        }
        if (const int p = link.parent; p >= 0) {
            F[static_cast<std::size_t>(p)] += F[i];
            Ic[static_cast<std::size_t>(p)] += Ic[i];
            if (G) Fg[static_cast<std::size_t>(p)] += Fg[i];
        }
    }
    compositeMassMatrix(tree, Ic, s, M);
}

}  // namespace

namespace {

// ---- Loops: the cut joints' rows held on the tree's coordinates ------------------------------

// The cut joints' rows at the bodies' frames: Φc, and with `J` its Jacobian ∂Φc/∂q (cutRows ×
// links) and with `A0` (the links' accelerations with q̈ = 0, at the world origin) the
// right-hand side of Jc q̈ = γ̃: the rows' γ less what the velocity products accelerate them by.
// A row's sensitivity to its body's (v, ω') is the spatial force f = (p × jv + R jω, jv) about
// the world origin, so its column for a link k on the path to the root is s_k·f, and with the
// body's acceleration (A0 at the origin; p̈ = a + α × p + ω × v) its bias term f·A0 + jv·(ω × v).
struct LoopRows {
    Eigen::VectorXd Phi, gamma;
    Eigen::MatrixXd J;
    std::vector<double> blocks;  // a joint's rows × 12 (evaluateJointRows)
    // With the Jacobian: per row, each side's f (zero on the ground) and body (kGround): a
    // multiplier λ of the row pushes that body with the spatial force −λ f.
    std::vector<Vec6> sideForce;
    std::vector<int> sideBody;
};

// A row's six entries on a body (velocity, then angular velocity in the body's frame) as the
// spatial force about the world origin (moment, force) that the row's multiplier pushes with.
Vec6 rowForce(const BodyFrame& frame, const double* e) {
    const Vec3 jv(e[0], e[1], e[2]);
    Vec6 f;
    f.head<3>() = frame.r.cross(jv) + frame.R * Vec3(e[3], e[4], e[5]);
    f.tail<3>() = jv;
    return f;
}

// The rows of cut joint j from `row` on as the loop stepper needs them — Φ, and with
// `jacobian` the rows of J — straight from the world-frame point and axis rates along each
// side's chain of links, for joints of coincident points, perpendicular axes, points in planes
// and distances (every joint of the library but those on curves and surfaces: false, nothing
// written; loopRows then takes the general evaluation). Φ as constraints.cpp evaluates it; a
// column e of J (a unit rate, spatial velocity (ω, v_O) at the world origin) moves a point P
// at v_O + ω × P and turns an axis a at ω × a.
bool directCutRows(const Model& model, const JointTree& tree, const std::vector<BodyFrame>& frames,
                   const std::vector<Vec6>& s, int j, int row, bool jacobian, LoopRows& out) {
    const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
    for (const Primitive& p : joint.primitives)
        if (p.type != PrimitiveType::Coincident && p.type != PrimitiveType::Dot1 &&
            p.type != PrimitiveType::Dot2 && p.type != PrimitiveType::Distance)
            return false;
    struct Side {
        int body;
        const BodyFrame* f;
        const MarkerModel* m;
        Vec3 P;
        Vec3 axis(int k) const { return f ? Vec3(f->R * m->R_BM.col(k)) : Vec3(m->R_BM.col(k)); }
    };
    Side side[2];
    for (int k = 0; k < 2; ++k) {
        const MarkerModel& m =
            model.markers[static_cast<std::size_t>(k == 0 ? joint.markerI : joint.markerJ)];
        const BodyFrame* f =
            m.body == kGround ? nullptr : &frames[static_cast<std::size_t>(m.body)];
        Vec3 P = m.X_BM.p;
        if (f) {
            const Vec3 offset = f->R * m.X_BM.p;
            P = f->r + offset;
        }
        side[k] = {m.body, f, &m, P};
    }
    const Vec3 d = side[1].P - side[0].P;
    // Φ, and per primitive what its J entries need: an axis a and a × b (Dot1) or a × d (Dot2).
    constexpr int kMost = 8;
    Vec3 a[kMost], cross[kMost];
    int r = row, k = 0;
    for (const Primitive& p : joint.primitives) {
        switch (p.type) {
        case PrimitiveType::Coincident:
            for (int c = 0; c < 3; ++c) out.Phi(r + c) = d(c);
            break;
        case PrimitiveType::Dot1: {
            const Vec3 ai = side[0].axis(p.axisI), bj = side[1].axis(p.axisJ);
            out.Phi(r) = ai.dot(bj);
            if (k < kMost) cross[k] = ai.cross(bj);
            break;
        }
        case PrimitiveType::Dot2: {
            const Vec3 ai = side[0].axis(p.axisI);
            out.Phi(r) = ai.dot(d);
            if (k < kMost) {
                a[k] = ai;
                cross[k] = ai.cross(d);
            }
            break;
        }
        default:  // Distance
            out.Phi(r) = (d.squaredNorm() - p.length * p.length) / (2.0 * p.length);
            break;
        }
        r += p.rows();
        ++k;
    }
    if (!jacobian) return true;
    if (k > kMost) return false;  // (no joint of the library has more primitives)
    for (int sd = 0; sd < 2; ++sd) {
        const Side& at = side[sd];
        if (at.body == kGround) continue;
        const double sign = sd == 0 ? -1.0 : 1.0;  // d = P_J − P_I
        for (int l = tree.linkOfBody[static_cast<std::size_t>(at.body)]; l >= 0;
             l = tree.links[static_cast<std::size_t>(l)].parent) {
            const JointTree::Link& on = tree.links[static_cast<std::size_t>(l)];
            for (int e = on.iv; e < on.iv + on.nv; ++e) {
                const Vec6& column = s[static_cast<std::size_t>(e)];
                const Vec3 w = column.head<3>();
                const Vec3 u = column.tail<3>() + w.cross(at.P);  // P's velocity
                int rr = row, kk = 0;
                for (const Primitive& p : joint.primitives) {
                    switch (p.type) {
                    case PrimitiveType::Coincident:
                        for (int c = 0; c < 3; ++c) out.J(rr + c, e) += sign * u(c);
                        break;
                    case PrimitiveType::Dot1:  // ω_I·(a × b) − ω_J·(a × b)
                        out.J(rr, e) -= sign * w.dot(cross[kk]);
                        break;
                    case PrimitiveType::Dot2:  // ω_I·(a × d) + a·(v_J − v_I)
                        out.J(rr, e) += sign * a[kk].dot(u) + (sd == 0 ? w.dot(cross[kk]) : 0.0);
                        break;
                    default:  // d·(v_J − v_I) / L
                        out.J(rr, e) += sign * d.dot(u) / p.length;
                        break;
                    }
                    rr += p.rows();
                    ++kk;
                }
            }
        }
    }
    return true;
}

void loopRows(const Model& model, const JointTree& tree, const std::vector<BodyFrame>& frames,
              const std::vector<Vec6>& s, const std::vector<Vec6>* A0, bool jacobian, LoopRows& out,
              const Eigen::VectorXd* q = nullptr, bool direct = false) {
    const int m = tree.cutRows;
    out.Phi.resize(m);
    out.gamma.setZero(m);
    // (Direct rows — the loop stepper's — have no sides: it needs Φ and J alone.)
    const bool withSides = jacobian && !direct;
    if (jacobian) out.J.setZero(m, tree.nv);
    if (withSides) {
        out.sideForce.resize(static_cast<std::size_t>(2 * m));  // (each written below)
        out.sideBody.resize(static_cast<std::size_t>(2 * m));
    }
    int row = 0;
    for (const int j : tree.cuts) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
        if (direct && !A0 && directCutRows(model, tree, frames, s, j, row, jacobian, out)) {
            row += joint.rows;
            continue;
        }
        out.blocks.resize(static_cast<std::size_t>(12 * joint.rows));
        evaluateJointRows(model, j, frames, jacobian, A0 != nullptr,
                          out.Phi.segment(row, joint.rows), out.gamma.segment(row, joint.rows),
                          out.blocks.data());
        if (!jacobian) {
            row += joint.rows;
            continue;
        }
        const int sides[2] = {model.markers[static_cast<std::size_t>(joint.markerI)].body,
                              model.markers[static_cast<std::size_t>(joint.markerJ)].body};
        for (int r = 0; r < joint.rows; ++r, ++row) {
            for (int side = 0; side < 2; ++side) {
                const int b = sides[side];
                if (b == kGround) {
                    if (withSides) {
                        out.sideForce[static_cast<std::size_t>(2 * row + side)].setZero();
                        out.sideBody[static_cast<std::size_t>(2 * row + side)] = kGround;
                    }
                    continue;
                }
                const double* e = out.blocks.data() + 12 * r + 6 * side;
                const BodyFrame& frame = frames[static_cast<std::size_t>(b)];
                const Vec3 jv(e[0], e[1], e[2]);
                const Vec6 f = rowForce(frame, e);
                if (withSides) {
                    out.sideForce[static_cast<std::size_t>(2 * row + side)] = f;
                    out.sideBody[static_cast<std::size_t>(2 * row + side)] = b;
                }
                const int link = tree.linkOfBody[static_cast<std::size_t>(b)];
                for (int k = link; k >= 0; k = tree.links[static_cast<std::size_t>(k)].parent) {
                    const JointTree::Link& on = tree.links[static_cast<std::size_t>(k)];
                    for (int e = on.iv; e < on.iv + on.nv; ++e)
                        out.J(row, e) += s[static_cast<std::size_t>(e)].dot(f);
                }
                if (A0)
                    out.gamma(row) -= f.dot((*A0)[static_cast<std::size_t>(link)]) +
                                      jv.dot(frame.w.cross(frame.v));
            }
        }
    }
    // The couplers' rows: linear in the coordinates, Φ = Σ c q − offset as in maximal
    // coordinates (γ = 0; Φ where q is given, else 0). A coupler acts within its joints (its
    // multiplier a generalised force along their axes), except gears and racks that roll on a
    // carrier: their multiplier is the tooth force at the pitch point on the two gears' bodies
    // (its sides: which the bearings carry), whose generalised force is the same, the
    // coordinates' relation being the rolling condition on the tree.
    for (const JointTree::CouplerRow& c : tree.couplerRows) {
        const CouplerModel& coupler = model.couplers[static_cast<std::size_t>(c.coupler)];
        double phi = -coupler.offset;
        for (std::size_t t = 0; t < c.rates.size(); ++t) {
            if (q) phi += c.coefficients[t] * (*q)(c.coordinates[t]);
            if (jacobian) out.J(row, c.rates[t]) += c.coefficients[t];
        }
        out.Phi(row) = q ? phi : 0.0;
        if (withSides)
            for (int side = 0; side < 2; ++side) {
                out.sideForce[static_cast<std::size_t>(2 * row + side)].setZero();
                out.sideBody[static_cast<std::size_t>(2 * row + side)] = kGround;
            }
        double entries[12];
        if (withSides && coupler.rolling &&
            rollingCouplerEntries(model, c.coupler, frames, entries)) {
            for (int side = 0; side < 2; ++side) {
                const int b = coupler.gearBodies[side];
                if (b == kGround) continue;
                out.sideForce[static_cast<std::size_t>(2 * row + side)] =
                    rowForce(frames[static_cast<std::size_t>(b)], entries + 6 * side);
                out.sideBody[static_cast<std::size_t>(2 * row + side)] = b;
            }
        }
        ++row;
    }
}

// The largest gap of the cut joints' rows as a user measures it (maxPositionResidual): a
// coincident point pair by its distance, every other row by its magnitude.
double loopGap(const Model& model, const JointTree& tree, const Eigen::VectorXd& Phi) {
    double gap = 0.0;
    int row = 0;
    for (const int j : tree.cuts)
        for (const Primitive& p : model.joints[static_cast<std::size_t>(j)].primitives) {
            const int rows = p.rows();
            gap = std::max(gap, p.type == PrimitiveType::Coincident
                                    ? Phi.segment(row, 3).norm()
                                    : Phi.segment(row, rows).cwiseAbs().maxCoeff());
            row += rows;
        }
    for (std::size_t c = 0; c < tree.couplerRows.size(); ++c, ++row)
        gap = std::max(gap, std::abs(Phi(row)));
    return gap;
}

// The rates the loop closure may change: those no motion switched on prescribes.
void freeRates(const Model& model, const JointTree& tree, std::vector<int>& free) {
    free.clear();
    for (int e = 0; e < tree.nv; ++e)
        if (!tree.prescribed(model, e)) free.push_back(e);
}

// The composite-rigid-body mass matrix alone at the links' poses and motion subspaces.
void massMatrix(const Model& model, const JointTree& tree, const std::vector<Transform>& poses,
                const std::vector<Vec6>& s, Eigen::MatrixXd& M) {
    const int n = tree.size();
    thread_local std::vector<Mat6> Ic;
    Ic.resize(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
        const JointTree::Link& link = tree.links[static_cast<std::size_t>(k)];
        const Transform& X_WB = poses[static_cast<std::size_t>(link.body)];
        Ic[static_cast<std::size_t>(k)] =
            bodyInertia(model, link.body, X_WB, X_WB.rotationMatrix());
    }
    for (int k = n - 1; k >= 0; --k)
        if (const int p = tree.links[static_cast<std::size_t>(k)].parent; p >= 0)
            Ic[static_cast<std::size_t>(p)] += Ic[static_cast<std::size_t>(k)];
    compositeMassMatrix(tree, Ic, s, M);
}

// The bodies' frames (poses and velocities) of the links' poses and twists.
void framesOfLinks(const Model& model, const JointTree& tree, const std::vector<Transform>& poses,
                   const std::vector<Vec6>& V, std::vector<BodyFrame>& frames) {
    frames.resize(model.bodies.size());
    for (std::size_t k = 0; k < tree.links.size(); ++k) {
        const int b = tree.links[k].body;
        const Transform& X_WB = poses[static_cast<std::size_t>(b)];
        BodyFrame& f = frames[static_cast<std::size_t>(b)];
        f.R = X_WB.rotationMatrix();
        f.r = X_WB.p;
        f.w = V[k].head<3>();
        f.v = V[k].tail<3>() + f.w.cross(X_WB.p);
    }
}

std::string loopNames(const Model& model, const JointTree& tree) {
    std::string names;
    for (const int j : tree.cuts)
        names +=
            (names.empty() ? "'" : ", '") + model.joints[static_cast<std::size_t>(j)].name + "'";
    for (const JointTree::CouplerRow& c : tree.couplerRows)
        names += (names.empty() ? "coupler '" : ", coupler '") +
                 model.couplers[static_cast<std::size_t>(c.coupler)].name + "'";
    return names;
}

Status loopGapNotANumber(const Model& model, const JointTree& tree, double t) {
    return Status::failure("the loops closed by joints " + loopNames(model, tree) +
                           " have a gap that is not a number at t = " + timeText(t));
}

Status loopsNotClosed(const Model& model, const JointTree& tree, double t, double gap, int k,
                      const char* steps) {
    return Status::failure("the loops closed by joints " + loopNames(model, tree) +
                           " cannot be closed at t = " + timeText(t) + ": a gap of " +
                           numberText(gap) + " remains after " + std::to_string(k) + " " + steps +
                           " (the mechanism cannot be assembled there, or it is at a singular "
                           "position)");
}

}  // namespace

namespace {

// q̈ of a closed tree: M q̈ + h + Jcᵀ λ = 0 with Jc q̈ = γ̃ over the free coordinates, the
// prescribed ones taking their motions' q̈ (M and h by the composite-rigid-body and recursive
// Newton–Euler passes; the saddle point through the Schur complement of the closure, whose
// dependent rows are dropped in order as the maximal solver drops them).
Status loopAccelerations(const Model& model, const JointTree& tree, double t,
                         const Eigen::VectorXd& qd, const std::vector<Transform>& poses,
                         const std::vector<Vec6>& s, const std::vector<Vec6>& V,
                         const Eigen::VectorXd& bodyQ, const Eigen::VectorXd& bodyV,
                         const State& memory, Workspace& ws, Eigen::VectorXd& qdd,
                         LoopForces* forces) {
    if (Status st = evaluateAppliedForces(model, t, bodyQ, bodyV, memory.jointCoordinates,
                                          memory.lagged, ws);
        !st.ok)
        return st;
    const int n = tree.size();
    thread_local Eigen::MatrixXd M;
    thread_local Eigen::VectorXd h, lambda;
    massAndBias(model, tree, poses, s, V, qd, ws, M, h, nullptr);
    // The links' accelerations with q̈ = 0, for the closure's bias.
    thread_local std::vector<Vec6> A0;
    A0.resize(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
        const std::size_t i = static_cast<std::size_t>(k);
        const JointTree::Link& link = tree.links[i];
        const int p = link.parent;
        A0[i] = (p < 0 ? Vec6::Zero() : A0[static_cast<std::size_t>(p)]) +
                velocityProduct(tree, link, V[i],
                                p < 0 ? Vec6::Zero() : V[static_cast<std::size_t>(p)], s, qd);
    }
    thread_local LoopRows rows;
    loopRows(model, tree, ws.frames, s, &A0, true, rows);
    // The motions' q̈.
    thread_local std::vector<double> given;
    if (Status st = prescribedAccelerations(model, tree, t, given); !st.ok) return st;
    qdd.setZero(tree.nv);
    for (int e = 0; e < tree.nv; ++e)
        if (!std::isnan(given[static_cast<std::size_t>(e)]))
            qdd(e) = given[static_cast<std::size_t>(e)];
    thread_local std::vector<int> free;
    freeRates(model, tree, free);
    thread_local LoopClosure closure;
    if (!closure.factor(M, rows.J, free, &ws.loopBestPivot))
        return Status::failure("the joint-space mass matrix is not positive definite at t = " +
                               timeText(t) + " (a part of no mass on a joint?)");
    ws.loopRank = closure.rank();
    ws.loopBestRank = std::max(ws.loopBestRank, ws.loopRank);
    ws.loopPivot = closure.weakestPivot();
    // b = −h − M q̈_P over F; c = γ̃ − Jc q̈_P.
    thread_local Eigen::VectorXd prescribed, b, c, r, qddF;
    const bool driven = static_cast<int>(free.size()) < tree.nv;
    if (driven) prescribed.noalias() = M * qdd;
    const Eigen::Index nf = static_cast<Eigen::Index>(free.size());
    b.resize(nf);
    for (Eigen::Index a = 0; a < nf; ++a) {
        const int k = free[static_cast<std::size_t>(a)];
        b(a) = -h(k) - (driven ? prescribed(k) : 0.0);
    }
    c = rows.gamma;
    if (driven) c.noalias() -= rows.J * qdd;
    closure.solveMass(b);  // now M⁻¹ b: the unconstrained q̈_F
    // S λ = J_F M⁻¹ b − c, q̈_F = M⁻¹ (b − J_Fᵀ λ).
    r = c;
    r.noalias() = closure.JF() * b - r;
    closure.multipliers(r, lambda);
    qddF = b;
    qddF.noalias() -= closure.Y() * lambda;
    for (Eigen::Index a = 0; a < nf; ++a) qdd(free[static_cast<std::size_t>(a)]) = qddF(a);
    // The motions' generalised forces (M q̈ + h + Jcᵀ λ on their coordinates) and their power.
    for (int e = 0; e < tree.nv; ++e) {
        if (std::isnan(given[static_cast<std::size_t>(e)])) continue;
        const double Q = M.row(e).dot(qdd) + h(e) + rows.J.col(e).dot(lambda);
        ws.forceEnergies.actuatorPower += Q * qd(e);
        ws.forceEnergies.motionPowerRate += Q * qdd(e);
    }
    if (forces) {
        forces->lambda = lambda;
        forces->onBody.assign(model.bodies.size(), Vec6::Zero());
        for (std::size_t e = 0; e < rows.sideBody.size(); ++e)
            if (const int b = rows.sideBody[e]; b != kGround)
                forces->onBody[static_cast<std::size_t>(b)] -=
                    lambda(static_cast<Eigen::Index>(e / 2)) * rows.sideForce[e];
    }
    return {};
}

}  // namespace

Status projectLoopClosure(const Model& model, const JointTree& tree, double t, Eigen::VectorXd& q,
                          Eigen::VectorXd& qd, double tolerance, int* iterations,
                          std::vector<double>* bestPivot) {
    if (!tree.closed()) return {};
    if (!(tolerance > 0.0)) tolerance = model.settings.projectionTolerance;
    thread_local std::vector<Transform> poses;
    thread_local std::vector<Vec6> s, V;
    thread_local std::vector<BodyFrame> frames;
    thread_local LoopRows rows;
    thread_local Eigen::MatrixXd M;
    thread_local LoopClosure closure;
    thread_local std::vector<int> free;
    freeRates(model, tree, free);
    Eigen::VectorXd dx, dv;
    V.assign(tree.links.size(), Vec6::Zero());
    // Positions: Newton steps in the mass metric, Δq_F = −M⁻¹ J_Fᵀ S⁻¹ Φc (the mass matrix of
    // the first iterate: a metric, so the steps converge as Newton's do).
    bool factored = false;
    double previous = std::numeric_limits<double>::infinity();
    for (int k = 0;; ++k) {
        linkKinematics(model, tree, q, poses, s);
        framesOfLinks(model, tree, poses, V, frames);
        loopRows(model, tree, frames, s, nullptr, true, rows, &q);
        const double gap = loopGap(model, tree, rows.Phi);
        if (!std::isfinite(gap)) return loopGapNotANumber(model, tree, t);
        if (gap <= tolerance) break;
        if (k >= model.settings.maxProjectionIterations || (k > 2 && gap > 0.5 * previous))
            return loopsNotClosed(model, tree, t, gap, k, "Newton steps");
        previous = gap;
        if (!factored) massMatrix(model, tree, poses, s, M);
        if (!closure.factor(M, rows.J, free))
            return Status::failure("the joint-space mass matrix is not positive definite at t = " +
                                   timeText(t));
        factored = true;
        closure.correction(rows.Phi, dx);
        dv.setZero(tree.nv);
        for (std::size_t a = 0; a < free.size(); ++a)
            dv(free[a]) = dx(static_cast<Eigen::Index>(a));
        integrateJointCoordinates(tree, q, dv, 1.0);
        if (iterations) ++*iterations;
    }
    // Velocities: q̇_F ← q̇_F − M⁻¹ J_Fᵀ S⁻¹ (Jc q̇), Jc at the closed positions.
    if (!factored) massMatrix(model, tree, poses, s, M);
    // (Next to a singular position, the rows about to depend on the others left out: their
    // velocity rows are met to the order they barely hold, and correcting them would divide
    // the step's error by the angle between the rows.)
    if (!closure.factor(M, rows.J, free, bestPivot))
        return Status::failure("the joint-space mass matrix is not positive definite at t = " +
                               timeText(t));
    closure.correction(rows.J * qd, dx);
    for (std::size_t a = 0; a < free.size(); ++a) qd(free[a]) += dx(static_cast<Eigen::Index>(a));
    return {};
}

// ---- LoopStepper: SHAKE–RATTLE in joint coordinates ------------------------------------------

namespace {

// The links' spatial inertias in the world at their poses.
void linkInertias(const Model& model, const JointTree& tree, const std::vector<Transform>& poses,
                  const std::vector<BodyFrame>& frames, std::vector<Mat6>& I) {
    I.resize(tree.links.size());
    for (std::size_t k = 0; k < tree.links.size(); ++k) {
        const int b = tree.links[k].body;
        bodyInertia(model, b, poses[static_cast<std::size_t>(b)],
                    frames[static_cast<std::size_t>(b)].R, I[k]);
    }
}

// h(q, q̇): the recursive Newton–Euler pass with q̈ = 0 at the links' poses, motion subspaces,
// twists and spatial inertias I, with the applied forces in ws.g.
void biasForces(const Model& model, const JointTree& tree, const std::vector<Transform>& poses,
                const std::vector<BodyFrame>& frames, const std::vector<Mat6>& I,
                const std::vector<Vec6>& s, const std::vector<Vec6>& V, const Eigen::VectorXd& qd,
                const Workspace& ws, std::vector<Vec6>& A, std::vector<Vec6>& F,
                Eigen::VectorXd& h) {
    const std::size_t n = tree.links.size();
    A.resize(n);
    F.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const JointTree::Link& link = tree.links[i];
        const std::size_t p = static_cast<std::size_t>(link.parent);
        const Transform& X_WB = poses[static_cast<std::size_t>(link.body)];
        if (link.nv == 1) {
            A[i] = crossMotion(tree.rateOnChild[static_cast<std::size_t>(link.iv)]
                                   ? V[i]
                                   : (link.parent < 0 ? Vec6::Zero().eval() : V[p]),
                               s[static_cast<std::size_t>(link.iv)]) *
                   qd(link.iv);
        } else {
            A[i] = velocityProduct(tree, link, V[i], link.parent < 0 ? Vec6::Zero().eval() : V[p],
                                   s, qd);
        }
        if (link.parent >= 0) A[i] += A[p];
        F[i] = I[i] * A[i] + bodyBias(model, ws, link.body, X_WB,
                                      frames[static_cast<std::size_t>(link.body)].R, V[i]);
    }
    h.resize(tree.nv);
    for (std::size_t k = n; k-- > 0;) {
        const JointTree::Link& link = tree.links[k];
        for (int e = link.iv; e < link.iv + link.nv; ++e)
            h(e) = s[static_cast<std::size_t>(e)].dot(F[k]);
        if (link.parent >= 0) F[static_cast<std::size_t>(link.parent)] += F[k];
    }
}

// M(q) from the links' spatial inertias (composite-rigid-body).
void massFromInertias(const JointTree& tree, const std::vector<Mat6>& I, const std::vector<Vec6>& s,
                      std::vector<Mat6>& Ic, Eigen::MatrixXd& M) {
    Ic = I;
    for (std::size_t k = tree.links.size(); k-- > 0;)
        if (const int p = tree.links[k].parent; p >= 0) Ic[static_cast<std::size_t>(p)] += Ic[k];
    compositeMassMatrix(tree, Ic, s, M);
}

// The links' rates q̇ and twists V (at the world origin) from the bodies' velocities bodyV, at
// the links' poses and motion subspaces s: a hinge's rate its relative turn rate along its axis,
// a slider's its relative velocity along its axis, other joints' the least-squares fit of
// their columns to the relative twist (exact where the twist is one the joint allows).
void linkRatesFromBodies(const JointTree& tree, const std::vector<Transform>& poses,
                         const std::vector<Vec6>& s, const Eigen::VectorXd& bodyV,
                         Eigen::VectorXd& qd, std::vector<Vec6>& V) {
    qd.resize(tree.nv);
    V.resize(tree.links.size());
    for (std::size_t i = 0; i < tree.links.size(); ++i) {
        const JointTree::Link& link = tree.links[i];
        const Transform& X_WB = poses[static_cast<std::size_t>(link.body)];
        const Vec3 w = X_WB.R * Vec3(layout::angular(bodyV, link.body));
        V[i].head<3>() = w;
        V[i].tail<3>() = Vec3(layout::linear(bodyV, link.body)) - w.cross(X_WB.p);
        if (link.nv == 0) continue;
        const Vec6 dV =
            link.parent < 0 ? V[i] : Vec6(V[i] - V[static_cast<std::size_t>(link.parent)]);
        const Vec6* S = s.data() + link.iv;
        if (link.kind == LinkKind::Revolute) {
            qd(link.iv) = S[0].head<3>().dot(dV.head<3>());
        } else if (link.kind == LinkKind::Prismatic) {
            qd(link.iv) = S[0].tail<3>().dot(dV.tail<3>());
        } else {
            MatD G(link.nv, link.nv);
            VecD b(link.nv);
            for (int r = 0; r < link.nv; ++r) {
                b(r) = S[r].dot(dV);
                for (int c = 0; c < link.nv; ++c) G(r, c) = S[r].dot(S[c]);
            }
            qd.segment(link.iv, link.nv) = G.ldlt().solve(b);
        }
    }
}

// The right-hand side γ̃ of the cut rows' acceleration equations, Jc q̈ = γ̃, at the bodies'
// frames (their poses and velocities) and the links' accelerations A0 at q̈ = 0 (at the world
// origin): the rows' γ less what the velocity products accelerate them by (loopRows with A0,
// without the Jacobian).
void loopGamma(const Model& model, const JointTree& tree, const std::vector<BodyFrame>& frames,
               const std::vector<Vec6>& A0, Eigen::VectorXd& gamma) {
    thread_local std::vector<double> blocks;
    thread_local Eigen::VectorXd Phi;
    gamma.setZero(tree.cutRows);
    Phi.resize(tree.cutRows);
    int row = 0;
    for (const int j : tree.cuts) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
        blocks.resize(static_cast<std::size_t>(12 * joint.rows));
        evaluateJointRows(model, j, frames, true, true, Phi.segment(row, joint.rows),
                          gamma.segment(row, joint.rows), blocks.data());
        const int sides[2] = {model.markers[static_cast<std::size_t>(joint.markerI)].body,
                              model.markers[static_cast<std::size_t>(joint.markerJ)].body};
        for (int r = 0; r < joint.rows; ++r, ++row)
            for (int side = 0; side < 2; ++side) {
                const int b = sides[side];
                if (b == kGround) continue;
                const double* e = blocks.data() + 12 * r + 6 * side;
                const BodyFrame& frame = frames[static_cast<std::size_t>(b)];
                const int link = tree.linkOfBody[static_cast<std::size_t>(b)];
                gamma(row) -= rowForce(frame, e).dot(A0[static_cast<std::size_t>(link)]) +
                              Vec3(e[0], e[1], e[2]).dot(frame.w.cross(frame.v));
            }
    }
}

bool sameBits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return a.size() == b.size() &&
           std::equal(a.data(), a.data() + a.size(), b.data(),
                      [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; });
}

// Whether a link holds its coordinates in State::jointCoordinates as they are (bodyStateFromJoints
// writes them there; a ball's there is its cone angle, a free part has none).
bool coordinatesHeld(const JointTree::Link& link) {
    return link.slot >= 0 && link.kind != LinkKind::Spherical && link.kind != LinkKind::Free;
}

// The coordinates q found from the bodies' poses replaced by those the state holds exactly
// (State::jointCoordinates) where they agree to 1e-12: a step from a recorded copy of a state
// starts from the coordinates the step that wrote it ended with, to the bit.
void takeHeldCoordinates(const JointTree& tree, const Eigen::VectorXd& jointCoordinates,
                         Eigen::VectorXd& q) {
    for (const JointTree::Link& link : tree.links) {
        if (!coordinatesHeld(link)) continue;
        for (int c = 0; c < link.nq; ++c) {
            const double held = jointCoordinates(link.slot + c);
            if (std::abs(held - q(link.iq + c)) <= 1e-12 * std::max(1.0, std::abs(held)))
                q(link.iq + c) = held;
        }
    }
}

// The state a stepper wrote last — model, tree, time, the parts' poses and the joint
// coordinates — to tell a step that begins where the last one ended (the state as written, to
// the bit) from one on a state set from elsewhere.
struct WrittenState {
    const Model* model = nullptr;
    std::uint64_t serial = 0;
    const JointTree* tree = nullptr;
    bool valid = false;
    double t = 0.0;
    Eigen::VectorXd bodyQ, jointCoordinates;

    bool is(const Model& m, const JointTree& k, const State& state) const {
        return valid && model == &m && serial == m.serial && tree == &k && state.t == t &&
               sameBits(state.q, bodyQ) && sameBits(state.jointCoordinates, jointCoordinates);
    }
    void remember(const Model& m, const JointTree& k, const State& state) {
        valid = true;
        model = &m;
        serial = m.serial;
        tree = &k;
        t = state.t;
        bodyQ = state.q;
        jointCoordinates = state.jointCoordinates;
    }
    void forget() {
        valid = false;
        model = nullptr;
    }
};

}  // namespace

struct LoopStepper::Memory {
    // What the step's start (at q) holds, valid for the state written last.
    WrittenState written;
    std::vector<int> free;
    // At the start q (index 0) and at the step's end q₁ (index 1): poses, motion subspaces,
    // frames, spatial inertias, the cut rows (Φ, J), M and the closure factored.
    struct At {
        Eigen::VectorXd q;
        std::vector<Transform> poses;
        std::vector<Vec6> s;
        std::vector<BodyFrame> frames;
        std::vector<Mat6> I;
        LoopRows rows;
        Eigen::MatrixXd M;
        LoopClosure closure;
        bool forPositions = false;  // the closure factored with no row dropped by its best pivot
    };
    At at[2];
    int start = 0;  // at[start] is the step's start
    // The step's vectors.
    Eigen::VectorXd q, qd, v, hb, given, r, mu, dv, dq, gamma, qdd, end, qend, scratch, mu0;
    // What the first estimate of the impulses missed at the last steps (μ − μ₀ with what closes
    // the gap left: S⁻¹ Φc/h), newest first (a column each, kMissed at most), valid for a
    // step from missedT at the closure's rank missedRank; `missedSteps`: how many columns hold.
    Eigen::MatrixXd missed;
    double missedT = 0.0;
    int missedRank = -1, missedSteps = 0;
    std::vector<Vec6> V, A, F;
    std::vector<Mat6> Ic;
    std::vector<int> freeNow;
    std::vector<int> offsets;  // jointCoordinateOffsets(model)
};

LoopStepper::LoopStepper() : m_(std::make_unique<Memory>()) {}
LoopStepper::~LoopStepper() = default;
LoopStepper::LoopStepper(LoopStepper&&) noexcept = default;
LoopStepper& LoopStepper::operator=(LoopStepper&&) noexcept = default;
bool LoopStepper::takes(const Model& /*model*/, const JointTree& tree) {
    return tree.closed() && tree.movingFrames() == 0;
}

void LoopStepper::reset() {
    m_->written.forget();
    m_->missedSteps = 0;
}

namespace {

// At most how many cut rows a tree of the model has, whichever spanning tree it is: the rows of
// the joints that cannot be links, of as many of the others (those with the most rows) as
// close loops among them, and a row per coupler.
int cutRowsBound(const Model& model) {
    BodyGraph graph(model);
    int rows = static_cast<int>(model.couplers.size()), loops = 0;
    std::vector<int> linkRows;
    for (const JointModel& joint : model.joints) {
        if (!linkKindOf(joint.type)) {
            rows += joint.rows;
            continue;
        }
        linkRows.push_back(joint.rows);
        if (!graph.join(joint)) ++loops;
    }
    std::sort(linkRows.begin(), linkRows.end(), std::greater<>());
    for (int k = 0; k < loops; ++k) rows += linkRows[static_cast<std::size_t>(k)];
    return rows;
}

}  // namespace

int LoopStepper::memorySize(const Model& model) {
    const SolverSettings& settings = model.settings;
    if (settings.formulation != Formulation::Recursive ||
        settings.integrator != IntegratorType::SymplecticEuler || !hasClosedLoops(model))
        return 0;
    return 4 + kMissed * cutRowsBound(model);
}

// [missedSteps, missedT, missedRank, n, the missed columns (n each)], zeros after; missedSteps
// 0: none.
void LoopStepper::saveMemory(double* memory, int size) const {
    if (size <= 0) return;
    std::fill(memory, memory + size, 0.0);
    const Memory& m = *m_;
    const Eigen::Index n = m.missed.rows(), columns = m.missedSteps;
    if (columns == 0 || size < 4 + columns * n) return;
    memory[0] = static_cast<double>(columns);
    memory[1] = m.missedT;
    memory[2] = m.missedRank;
    memory[3] = static_cast<double>(n);
    std::copy(m.missed.data(), m.missed.data() + columns * n, memory + 4);
}

void LoopStepper::restoreMemory(const double* memory, int size) {
    Memory& m = *m_;
    m.missedSteps = 0;
    if (size < 4 || !std::all_of(memory, memory + size, [](double x) { return std::isfinite(x); }))
        return;  // (a hostile file's: the step estimates afresh)
    const double columns = memory[0], rank = memory[2], n = memory[3];
    if (!(columns >= 1.0 && columns <= kMissed && columns == std::floor(columns) && n >= 0.0 &&
          n == std::floor(n) && 4.0 + columns * n <= size && rank >= -1.0 && rank <= n))
        return;
    const Eigen::Index rows = static_cast<Eigen::Index>(n);
    m.missedSteps = static_cast<int>(columns);
    m.missed.setZero(rows, kMissed);
    std::copy(memory + 4, memory + 4 + m.missedSteps * rows, m.missed.data());
    m.missedT = memory[1];
    m.missedRank = static_cast<int>(rank);
}

namespace {

// The kinematics of the tree at q: poses, motion subspaces, the bodies' frames (at rest), and the
// cut rows (Φ; and their Jacobian when asked), directly (directCutRows: no sides).
void loopKinematics(const Model& model, const JointTree& tree, const Eigen::VectorXd& q,
                    bool jacobian, std::vector<Transform>& poses, std::vector<Vec6>& s,
                    std::vector<BodyFrame>& frames, LoopRows& rows) {
    thread_local std::vector<Vec6> still;
    still.assign(tree.links.size(), Vec6::Zero());
    linkKinematics(model, tree, q, poses, s);
    framesOfLinks(model, tree, poses, still, frames);
    loopRows(model, tree, frames, s, nullptr, jacobian, rows, &q, true);
}

}  // namespace

Status LoopStepper::step(const Model& model, const JointTree& tree, State& state, Workspace& ws,
                         double h, int& iterations) {
    Memory& m = *m_;
    Memory::At& a0 = m.at[m.start];
    Memory::At& a1 = m.at[1 - m.start];
    const double t1 = state.t + h;
    freeRates(model, tree, m.freeNow);
    // (Kept only where every link's coordinates are held exactly in the state, so that a step
    // from a recorded copy starts from the same coordinates: not with balls or free parts.)
    const bool held = std::all_of(tree.links.begin(), tree.links.end(), [](const auto& link) {
        return link.nq == 0 || coordinatesHeld(link);
    });
    const bool same = held && m.freeNow == m.free && m.written.is(model, tree, state);
    // On a state not written here, the coordinates from the bodies' poses (those the state holds
    // exactly in its joint coordinates taken from there, so that a run resumed from a recorded
    // copy of it starts where the run did, to the bit) and what the start needs at them.
    if (!same) {
        thread_local std::vector<Transform> bodyPoses;
        thread_local std::vector<Vec6> bodyS;
        linkStateFromBodies(model, tree, state.q, state.v, state.jointCoordinates, m.q, m.qd,
                            bodyPoses, bodyS, m.V);
        if (m.written.model != &model || m.written.serial != model.serial)
            m.offsets = jointCoordinateOffsets(model);
        takeHeldCoordinates(tree, state.jointCoordinates, m.q);
        a0.q = m.q;
        loopKinematics(model, tree, a0.q, true, a0.poses, a0.s, a0.frames, a0.rows);
        linkInertias(model, tree, a0.poses, a0.frames, a0.I);
        massFromInertias(tree, a0.I, a0.s, m.Ic, a0.M);
        a0.forPositions = false;
        m.free = m.freeNow;
    }
    // The rates from the bodies' velocities.
    linkRatesFromBodies(tree, a0.poses, a0.s, state.v, m.qd, m.V);
    if (!a0.forPositions) {
        if (!a0.closure.factor(a0.M, a0.rows.J, m.free))
            return Status::failure("the joint-space mass matrix is not positive definite at t = " +
                                   timeText(state.t) + " (a part of no mass on a joint?)");
        a0.forPositions = true;
    }
    ws.loopRank = a0.closure.rank();
    ws.loopBestRank = std::max(ws.loopBestRank, ws.loopRank);
    const std::vector<int>& free = m.free;
    const Eigen::Index nf = static_cast<Eigen::Index>(free.size());

    // The forces at the step's start and h(q, q̇); v* = q̇ − h M⁻¹ h.
    if (Status st = evaluateAppliedForces(model, state.t, state.q, state.v, state.jointCoordinates,
                                          state.lagged, ws);
        !st.ok)
        return st;
    biasForces(model, tree, a0.poses, a0.frames, a0.I, a0.s, m.V, m.qd, ws, m.A, m.F, m.hb);
    const bool driven = nf < tree.nv;
    m.v = m.qd;
    m.qdd.setZero(tree.nv);
    // A motion's coordinate moves at its mean rate over the step (where the motion puts it at
    // the step's end); the free rates feel its whole change of rate, to its rate at the end.
    if (driven) {
        m.end = m.qd;
        m.qend = a0.q;
        prescribeMotions(model, tree, t1, m.qend, m.end);
        m.qdd = (m.end - m.qd) * (1.0 / h);
        prescribedMeanRates(model, tree, t1, a0.q, h, m.v);
    }
    m.given.resize(nf);
    for (Eigen::Index f = 0; f < nf; ++f) {
        const int e = free[static_cast<std::size_t>(f)];
        m.given(f) = m.hb(e) + (driven ? a0.M.row(e).dot(m.qdd) : 0.0);
    }
    a0.closure.solveMass(m.given);
    for (Eigen::Index f = 0; f < nf; ++f) m.v(free[static_cast<std::size_t>(f)]) -= h * m.given(f);

    // Impulses μ until the cut rows hold at the step's end (the step's start factored: the
    // iterations converge linearly; when the last ratio says the next iterate will meet the
    // tolerance, it is evaluated with the rows' Jacobian, the velocity projection's first need).
    const double tolerance = model.settings.projectionTolerance;
    // The first estimate, to first order in h: Φc(q ⊕ h v) = Φc + h Jc v + O(h²), so
    // Jc v = −Φc/h, μ₀ = S⁻¹ (Jc v* + Φc/h).
    multiply(a0.rows.J, m.v, m.r);
    m.r += a0.rows.Phi * (1.0 / h);
    a0.closure.multipliers(m.r, m.mu);
    m.mu0 = m.mu;
    // What it misses (the rows' curvature over the step, M and the forces changing over it)
    // changes smoothly along the motion: the last steps' misses extrapolated by the polynomial
    // through up to five of them, so that the first evaluation closes the loops (measured on
    // the four-bar: its gap below 1e-10 m in 99.4 % of the steps with five, 86 % with four,
    // 61 % with two; about 1e-7 m with the first estimate alone).
    // Where nothing is carried (a run's first steps, a state set from elsewhere), the
    // second-order term instead: Φc(q ⊕ h v) = Φc + h Jc v − ½ h² γ̃(v) + O(h³) (for one-axis
    // coordinates vᵀ Φc,qq v = −γ̃(v)), with γ̃ at the step's start (the bodies' frames as the
    // forces found them, the velocity products of the bias forces' pass).
    bool carrying = m.missedSteps > 0 && m.missedT == state.t &&
                    m.missedRank == a0.closure.rank() && m.missed.rows() == m.mu.size();
    const auto secondOrder = [&] {
        if (tree.cuts.empty()) return;
        loopGamma(model, tree, ws.frames, m.A, m.gamma);
        m.r = (-0.5 * h) * m.gamma;
        a0.closure.multipliers(m.r, m.gamma);
        m.mu += m.gamma;
    };
    if (carrying) {
        static constexpr double kExtrapolation[kMissed][kMissed] = {{1, 0, 0, 0, 0},
                                                                    {2, -1, 0, 0, 0},
                                                                    {3, -3, 1, 0, 0},
                                                                    {4, -6, 4, -1, 0},
                                                                    {5, -10, 10, -5, 1}};
        const double* c = kExtrapolation[m.missedSteps - 1];
        for (int k = 0; k < m.missedSteps; ++k) m.mu += c[k] * m.missed.col(k);
    } else {
        secondOrder();
    }
    a0.closure.applyY(m.mu, m.given);
    for (Eigen::Index f = 0; f < nf; ++f) m.v(free[static_cast<std::size_t>(f)]) -= m.given(f);
    double previous = 0.0, ratio = 1e-3;
    bool withJacobian = false;
    int k = 0;
    for (;; ++k) {
        withJacobian = k > 0 ? previous * ratio <= tolerance : carrying;
        a1.q = a0.q;
        integrateJointCoordinates(tree, a1.q, m.v, h);
        if (driven) {
            m.scratch = m.v;
            prescribeMotions(model, tree, t1, a1.q, m.scratch);
        }
        loopKinematics(model, tree, a1.q, withJacobian, a1.poses, a1.s, a1.frames, a1.rows);
        const double gap = loopGap(model, tree, a1.rows.Phi);
        if (!std::isfinite(gap) && !(k == 0 && carrying)) return loopGapNotANumber(model, tree, t1);
        // (An extrapolation far off, where the motion changed abruptly: the estimate of the
        // step alone, as where nothing is carried.)
        if (k == 0 && carrying && !(gap <= kCarriedGapLimit * tolerance)) {
            m.dv = m.mu;
            m.mu = m.mu0;
            secondOrder();
            m.dv -= m.mu;
            a0.closure.applyY(m.dv, m.given);
            for (Eigen::Index f = 0; f < nf; ++f)
                m.v(free[static_cast<std::size_t>(f)]) += m.given(f);
            carrying = false;
            previous = std::numeric_limits<double>::infinity();
            continue;
        }
        if (gap <= tolerance) break;
        if (k >= 4 * model.settings.maxProjectionIterations)
            return loopsNotClosed(model, tree, t1, gap, k, "impulse iterations");
        if (k > 0) ratio = std::clamp(gap / previous, 1e-3, 1.0);
        previous = gap;
        // v_F −= Y S⁻¹ Φ/h, μ += S⁻¹ Φ/h.
        m.r = a1.rows.Phi * (1.0 / h);
        a0.closure.multipliers(m.r, m.dv);
        m.mu += m.dv;
        a0.closure.applyY(m.dv, m.given);
        for (Eigen::Index f = 0; f < nf; ++f) m.v(free[static_cast<std::size_t>(f)]) -= m.given(f);
    }
    iterations += k;
    // What the estimate missed, for the next step.
    if (!carrying) {
        m.missed.setZero(m.mu.size(), kMissed);
        m.missedSteps = 0;
    }
    for (int c = kMissed - 1; c > 0; --c) m.missed.col(c) = m.missed.col(c - 1);
    m.r = a1.rows.Phi * (1.0 / h);
    a0.closure.multipliers(m.r, m.dv);
    m.missed.col(0) = m.dv + m.mu - m.mu0;
    m.missedSteps = std::min(m.missedSteps + 1, kMissed);
    m.missedT = t1;
    m.missedRank = a0.closure.rank();
    if (!withJacobian) loopRows(model, tree, a1.frames, a1.s, nullptr, true, a1.rows, &a1.q, true);

    // The motions' generalised impulses over the step, M Δq̇ + h h + Jcᵀ μ on their rates (their
    // own Δq̇ the whole change to their rates at the step's end), each times the mean rate it
    // moved its coordinate at; then their rates at the step's end.
    double motionWork = 0.0;
    if (driven) {
        for (int e = 0; e < tree.nv; ++e) {
            if (!tree.prescribed(model, e)) continue;
            double impulse = h * m.hb(e) + a0.rows.J.col(e).dot(m.mu);
            for (int c = 0; c < tree.nv; ++c)
                impulse +=
                    a0.M(e, c) * (tree.prescribed(model, c) ? h * m.qdd(c) : m.v(c) - m.qd(c));
            motionWork += impulse * m.v(e);
        }
        for (int e = 0; e < tree.nv; ++e)
            if (tree.prescribed(model, e)) m.v(e) = m.end(e);
    }

    // The step's end: M and the closure there, the rates onto the cut rows' velocity rows.
    linkInertias(model, tree, a1.poses, a1.frames, a1.I);
    massFromInertias(tree, a1.I, a1.s, m.Ic, a1.M);
    if (!a1.closure.factor(a1.M, a1.rows.J, free, &ws.loopBestPivot))
        return Status::failure("the joint-space mass matrix is not positive definite at t = " +
                               timeText(t1));
    a1.forPositions = !a1.closure.droppedNearSingular();
    ws.loopPivot = a1.closure.weakestPivot();
    multiply(a1.rows.J, m.v, m.r);
    a1.closure.correction(m.r, m.dq);
    for (Eigen::Index f = 0; f < nf; ++f) m.v(free[static_cast<std::size_t>(f)]) += m.dq(f);
    if (driven) {  // (what the motions give to hold their rates meanwhile)
        const Eigen::VectorXd& sigma = a1.closure.correctionMultipliers();
        for (int e = 0; e < tree.nv; ++e) {
            if (!tree.prescribed(model, e)) continue;
            double impulse = a1.rows.J.col(e).dot(sigma);
            for (Eigen::Index f = 0; f < nf; ++f)
                impulse += a1.M(e, free[static_cast<std::size_t>(f)]) * m.dq(f);
            motionWork += impulse * m.v(e);
        }
    }

    state.dissipatedEnergy += h * ws.forceEnergies.dampingPower;
    state.driverWork += h * ws.forceEnergies.actuatorPower + motionWork;
    // The bodies' state from the end's poses; the links' coordinates as they are, the cut
    // joints' measured.
    linkVelocities(tree, a1.s, m.v, m.V);
    writeBodyState(model, tree, a1.poses, m.V, state.q, state.v);
    if (state.jointCoordinates.size() != model.jointCoordinateCount)
        state.jointCoordinates = Eigen::VectorXd::Zero(model.jointCoordinateCount);
    for (const JointTree::Link& link : tree.links) {
        if (link.slot < 0 || link.nq == 0) continue;
        if (link.kind == LinkKind::Spherical) {
            const Vec3 z = unitQuat(a1.q.data() + link.iq) * Vec3::UnitZ();
            state.jointCoordinates(link.slot) = std::atan2(z.head<2>().norm(), z.z());
            continue;
        }
        for (int c = 0; c < link.nq; ++c) state.jointCoordinates(link.slot + c) = a1.q(link.iq + c);
    }
    for (const int j : tree.cuts) {
        const JointModel& joint = model.joints[static_cast<std::size_t>(j)];
        const int first = m.offsets[static_cast<std::size_t>(j)];
        for (int c = 0; c < static_cast<int>(joint.coordinates.size()); ++c) {
            const double value = jointCoordinateValue(model, a1.frames, j, c);
            double& slot = state.jointCoordinates(first + c);
            slot = joint.coordinates[static_cast<std::size_t>(c)] == JointAxis::Rotation
                       ? unwindAngle(value, slot)
                       : value;
        }
    }
    state.t = t1;
    // The end is the next step's start.
    m.start = 1 - m.start;
    m.written.remember(model, tree, state);
    return {};
}

struct TreeStepper::Memory {
    WrittenState written;
    Eigen::VectorXd q, qd;
    std::vector<Transform> poses;
    std::vector<Vec6> s, V;
};

TreeStepper::TreeStepper() : m_(std::make_unique<Memory>()) {}
TreeStepper::~TreeStepper() = default;
TreeStepper::TreeStepper(TreeStepper&&) noexcept = default;
TreeStepper& TreeStepper::operator=(TreeStepper&&) noexcept = default;

bool TreeStepper::takes(const Model& /*model*/, const JointTree& tree) {
    return !tree.closed() && !tree.hybridMultiAxis &&
           std::all_of(tree.links.begin(), tree.links.end(),
                       [](const auto& link) { return link.nq == 0 || coordinatesHeld(link); });
}

void TreeStepper::reset() {
    m_->written.forget();
}

Status TreeStepper::start(const Model& model, const JointTree& tree, const State& state,
                          Workspace& ws, Eigen::VectorXd& q, Eigen::VectorXd& qd,
                          Eigen::VectorXd& qdd) {
    Memory& m = *m_;
    const bool same = m.written.is(model, tree, state);
    if (!same) {
        thread_local std::vector<Transform> bodyPoses;
        thread_local std::vector<Vec6> bodyS;
        linkStateFromBodies(model, tree, state.q, state.v, state.jointCoordinates, m.q, m.qd,
                            bodyPoses, bodyS, m.V);
        takeHeldCoordinates(tree, state.jointCoordinates, m.q);
        linkKinematics(model, tree, m.q, m.poses, m.s);
    }
    m.written.forget();  // (until finish() writes the state)
    linkRatesFromBodies(tree, m.poses, m.s, state.v, m.qd, m.V);
    q = m.q;
    qd = m.qd;
    return articulatedPasses(model, tree, state.t, qd, m.poses, m.s, m.V, state.q, state.v, state,
                             ws, qdd);
}

void TreeStepper::finish(const Model& model, const JointTree& tree, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& qd, State& state) {
    Memory& m = *m_;
    linkKinematics(model, tree, q, m.poses, m.s);
    linkVelocities(tree, m.s, qd, m.V);
    writeBodyState(model, tree, m.poses, m.V, state.q, state.v);
    if (state.jointCoordinates.size() != model.jointCoordinateCount)
        state.jointCoordinates = Eigen::VectorXd::Zero(model.jointCoordinateCount);
    for (const JointTree::Link& link : tree.links)
        if (link.slot >= 0)
            for (int c = 0; c < link.nq; ++c)
                state.jointCoordinates(link.slot + c) = q(link.iq + c);
    m.q = q;
    m.written.remember(model, tree, state);
}

bool loopsSingularAt(const Model& model, const JointTree& tree, const State& state,
                     std::string& why) {
    if (!tree.closed()) return false;
    Eigen::VectorXd q, qd;
    jointSpaceState(model, tree, state, q, qd);
    std::vector<Transform> poses;
    std::vector<Vec6> s;
    std::vector<BodyFrame> frames;
    const std::vector<Vec6> V(tree.links.size(), Vec6::Zero());
    LoopRows rows;
    std::vector<int> free;
    freeRates(model, tree, free);
    if (free.empty()) return false;
    linkKinematics(model, tree, q, poses, s);
    framesOfLinks(model, tree, poses, V, frames);
    loopRows(model, tree, frames, s, nullptr, true, rows, &q);
    if (rows.J.rows() == 0) return false;
    Eigen::MatrixXd JF(rows.J.rows(), static_cast<Eigen::Index>(free.size()));
    for (std::size_t a = 0; a < free.size(); ++a)
        JF.col(static_cast<Eigen::Index>(a)) = rows.J.col(free[a]);
    // The directions the rows barely hold or leave free at first order: the mechanism's own
    // (tangent to its positions) and, at or next to a singular position, directions that are
    // not. Along each, ε = 1e-3 out: a direction of the mechanism's closes again within O(ε²)
    // of the point reached; one the rows hold only at second order (Φ quadratic in ε: doubling
    // ε quadruples it) is pulled back by O(ε) — a singular position (a direction the rows
    // hold at first order, however weakly, makes Φ linear in ε: a badly scaled mechanism, not
    // a singular one).
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(JF, Eigen::ComputeFullV);
    const Eigen::VectorXd& sigma = svd.singularValues();
    const double largest = sigma.size() > 0 ? sigma(0) : 0.0;
    auto gapAt = [&](const Eigen::VectorXd& x) {
        linkKinematics(model, tree, x, poses, s);
        framesOfLinks(model, tree, poses, V, frames);
        loopRows(model, tree, frames, s, nullptr, false, rows, &x);
        return Eigen::VectorXd(rows.Phi);
    };
    const Eigen::VectorXd phi0 = gapAt(q);
    const double step = 1e-3;
    for (Eigen::Index d = 0; d < JF.cols(); ++d) {
        if (d < sigma.size() && sigma(d) >= 1e-2 * largest) continue;
        Eigen::VectorXd moved = q, twice = q, rate = Eigen::VectorXd::Zero(tree.nv);
        Eigen::VectorXd direction = Eigen::VectorXd::Zero(tree.nv);
        for (std::size_t a = 0; a < free.size(); ++a)
            direction(free[a]) = svd.matrixV()(static_cast<Eigen::Index>(a), d);
        integrateJointCoordinates(tree, moved, direction, step);
        integrateJointCoordinates(tree, twice, direction, 2.0 * step);
        const double once = (gapAt(moved) - phi0).norm(), two = (gapAt(twice) - phi0).norm();
        if (!(two > 3.0 * once)) continue;  // held at first order (or not at all)
        const Eigen::VectorXd reached = moved;
        const Status closed = projectLoopClosure(model, tree, state.t, moved, rate);
        if (closed.ok && (moved - reached).norm() < 0.1 * step) continue;  // the mechanism's
        why = "the loops closed by joints " + loopNames(model, tree) +
              " are at or next to a singular position at t = " + timeText(state.t) +
              " (a dead centre, a linkage stretched straight or lying flat): their equations "
              "hold a direction there only at second order";
        return true;
    }
    return false;
}

int loopClosureRank(const Model& model, const JointTree& tree, const Eigen::VectorXd& q) {
    std::vector<Transform> poses;
    std::vector<Vec6> s;
    std::vector<BodyFrame> frames;
    const std::vector<Vec6> V(tree.links.size(), Vec6::Zero());
    LoopRows rows;
    Eigen::MatrixXd M;
    std::vector<int> free;
    freeRates(model, tree, free);
    linkKinematics(model, tree, q, poses, s);
    framesOfLinks(model, tree, poses, V, frames);
    loopRows(model, tree, frames, s, nullptr, true, rows);
    massMatrix(model, tree, poses, s, M);
    LoopClosure closure;
    if (!closure.factor(M, rows.J, free)) return -1;
    return closure.rank();
}

void cutRows(const Model& model, const JointTree& tree, const Eigen::VectorXd& q, bool direct,
             Eigen::VectorXd& Phi, Eigen::MatrixXd& J) {
    std::vector<Transform> poses;
    std::vector<Vec6> s;
    std::vector<BodyFrame> frames;
    const std::vector<Vec6> V(tree.links.size(), Vec6::Zero());
    LoopRows rows;
    linkKinematics(model, tree, q, poses, s);
    framesOfLinks(model, tree, poses, V, frames);
    loopRows(model, tree, frames, s, nullptr, true, rows, &q, direct);
    Phi = rows.Phi;
    J = rows.J;
}

namespace {

// The recursive Newton–Euler pass with given accelerations: per link, the spatial force its
// joint exerts on its body (about the world origin), less what the cut joints' rows exert on
// the body (`loopsOnBody`) and what pushes it from outside (`external`), both per body when
// given; per rate, s·F into `alongAxis`. ws.g and ws.frames at the state.
void transmittedForces(const Model& model, const JointTree& tree, const Workspace& ws,
                       const std::vector<Transform>& poses, const std::vector<Vec6>& s,
                       const std::vector<Vec6>& V, const Eigen::VectorXd& qd,
                       const Eigen::VectorXd& qdd, const std::vector<Vec6>* loopsOnBody,
                       const std::vector<Vec6>* external, std::vector<Vec6>& transmitted,
                       Eigen::VectorXd& alongAxis) {
    thread_local std::vector<Vec6> A;
    const std::size_t n = tree.links.size();
    A.resize(n);
    transmitted.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const JointTree::Link& link = tree.links[i];
        const Vec6 Ap = link.parent < 0 ? Vec6::Zero() : A[static_cast<std::size_t>(link.parent)];
        const Vec6 Vp = link.parent < 0 ? Vec6::Zero() : V[static_cast<std::size_t>(link.parent)];
        A[i] = Ap + velocityProduct(tree, link, V[i], Vp, s, qd);
        for (int e = link.iv; e < link.iv + link.nv; ++e)
            A[i] += s[static_cast<std::size_t>(e)] * qdd(e);
        const Transform& X_WB = poses[static_cast<std::size_t>(link.body)];
        const Mat3& R = ws.frames[static_cast<std::size_t>(link.body)].R;
        const Mat6 I = bodyInertia(model, link.body, X_WB, R);
        transmitted[i] = I * A[i] + bodyBias(model, ws, link.body, X_WB, R, V[i]);
        if (loopsOnBody) transmitted[i] -= (*loopsOnBody)[static_cast<std::size_t>(link.body)];
        if (external) transmitted[i] -= (*external)[static_cast<std::size_t>(link.body)];
    }
    alongAxis.resize(tree.nv);
    for (std::size_t i = n; i-- > 0;) {
        const JointTree::Link& link = tree.links[i];
        for (int e = link.iv; e < link.iv + link.nv; ++e)
            alongAxis(e) = s[static_cast<std::size_t>(e)].dot(transmitted[i]);
        if (const int p = tree.links[i].parent; p >= 0)
            transmitted[static_cast<std::size_t>(p)] += transmitted[i];
    }
}

}  // namespace

Status jointSpaceDynamics(const Model& model, const JointTree& tree, double t,
                          const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const State& memory,
                          Workspace& ws, Eigen::MatrixXd& M, Eigen::VectorXd& h) {
    std::vector<Transform> poses;
    std::vector<Vec6> s;
    linkKinematics(model, tree, q, poses, s);
    std::vector<Vec6> twists;
    linkVelocities(tree, s, qd, twists);
    if (Status st = evaluateTreeForces(model, tree, t, poses, twists, memory, ws); !st.ok)
        return st;
    massAndBias(model, tree, poses, s, twists, qd, ws, M, h, nullptr);
    return {};
}

void jointSpaceDynamicsAtBodies(const Model& model, const JointTree& tree,
                                const Eigen::VectorXd& bodyQ, const Eigen::VectorXd& bodyV,
                                const Eigen::VectorXd& jointCoordinates, const Workspace& ws,
                                Eigen::VectorXd& q, Eigen::VectorXd& qd, Eigen::MatrixXd& M,
                                Eigen::VectorXd& h, Eigen::VectorXd& G) {
    thread_local std::vector<Transform> poses;
    thread_local std::vector<Vec6> s, V;
    linkStateFromBodies(model, tree, bodyQ, bodyV, jointCoordinates, q, qd, poses, s, V);
    massAndBias(model, tree, poses, s, V, qd, ws, M, h, &G);
}

Status jointSpaceTransmitted(const Model& model, const JointTree& tree, const State& state,
                             Workspace& ws, Eigen::VectorXd& qd, Eigen::VectorXd& qdd,
                             std::vector<Vec6>& transmitted, Eigen::VectorXd& alongAxis,
                             Eigen::VectorXd* cutMultipliers) {
    thread_local Eigen::VectorXd q;
    thread_local std::vector<Transform> poses;
    thread_local std::vector<Vec6> s, V;
    thread_local LoopForces loops;
    if (tree.closed() || tree.hybridMultiAxis) {
        linkStateFromBodies(model, tree, state.q, state.v, state.jointCoordinates, q, qd, poses, s,
                            V);
        if (Status st = loopAccelerations(model, tree, state.t, qd, poses, s, V, state.q, state.v,
                                          state, ws, qdd, &loops);
            !st.ok)
            return st;
        if (cutMultipliers) *cutMultipliers = loops.lambda;
    } else {
        if (Status st = articulatedAccelerationsAt(model, tree, state, q, qd, ws, qdd); !st.ok)
            return st;
        linkStateFromBodies(model, tree, state.q, state.v, state.jointCoordinates, q, qd, poses, s,
                            V);
    }
    // (ws.g and ws.frames now hold the applied forces and frames at this state)
    transmittedForces(model, tree, ws, poses, s, V, qd, qdd,
                      tree.closed() ? &loops.onBody : nullptr, nullptr, transmitted, alongAxis);
    return {};
}

Status jointSpaceTransmittedOverStep(const Model& model, const JointTree& tree, const State& state,
                                     Workspace& ws, const Eigen::VectorXd& qdd,
                                     const std::vector<Vec6>& external,
                                     const Eigen::VectorXd& cutMultipliers, Eigen::VectorXd& qd,
                                     std::vector<Vec6>& transmitted, Eigen::VectorXd& alongAxis,
                                     const Eigen::VectorXd* softLambda) {
    thread_local Eigen::VectorXd q;
    thread_local std::vector<Transform> poses;
    thread_local std::vector<Vec6> s, V, onBody;
    thread_local LoopRows rows;
    linkStateFromBodies(model, tree, state.q, state.v, state.jointCoordinates, q, qd, poses, s, V);
    if (Status st = evaluateAppliedForces(model, state.t, state.q, state.v, state.jointCoordinates,
                                          state.lagged, ws);
        !st.ok)
        return st;
    // The soft joints pulling as the step pulled (its μs / h), not as k Φ + c Φ̇ at its end.
    if (softLambda && model.softRows > 0 && softLambda->size() == model.softRows) {
        ws.g.noalias() += ws.soft.Phi_q.transpose() * (ws.softLambda - *softLambda);
        ws.softLambda = *softLambda;
    }
    const bool loops = tree.closed() && cutMultipliers.size() == tree.cutRows;
    if (loops) {  // what the cut rows exert on the bodies: −λ f per row and side
        loopRows(model, tree, ws.frames, s, nullptr, true, rows);
        onBody.assign(model.bodies.size(), Vec6::Zero());
        for (std::size_t e = 0; e < rows.sideBody.size(); ++e)
            if (const int b = rows.sideBody[e]; b != kGround)
                onBody[static_cast<std::size_t>(b)] -=
                    cutMultipliers(static_cast<Eigen::Index>(e / 2)) * rows.sideForce[e];
    }
    transmittedForces(model, tree, ws, poses, s, V, qd, qdd, loops ? &onBody : nullptr, &external,
                      transmitted, alongAxis);
    return {};
}

Status jointSpaceSoftStep(const Model& model, const JointTree& tree, const State& state,
                          const Workspace& ws, double h, Eigen::VectorXd& qd,
                          Eigen::MatrixXd& softMass, Eigen::VectorXd& prescribed) {
    thread_local Eigen::VectorXd q, qdn, rate, rateStart, hold, r, x, dx;
    thread_local std::vector<Transform> poses;
    thread_local std::vector<Vec6> s, V;
    thread_local Eigen::MatrixXd M, Js;
    linkStateFromBodies(model, tree, state.q, state.v, state.jointCoordinates, q, qdn, poses, s, V);
    // The soft rows over the rates: a row's entry on a body's twist is the spatial force
    // (p × e_v + R e_ω, e_v) about the world origin, its column for a rate of a link on the
    // body's path to the root s·f (as the contact rows', below).
    const int ns = model.softRows;
    Js.setZero(ns, tree.nv);
    for (int row = 0; row < ns; ++row)
        for (SparseRowMatrix::InnerIterator it(ws.soft.Phi_q, row); it; ++it) {
            const int b = static_cast<int>(it.col() / layout::kVelocitiesPerBody);
            const int k = static_cast<int>(it.col() - layout::velocityIndex(b));
            const int link = tree.linkOfBody[static_cast<std::size_t>(b)];
            if (link < 0) continue;
            const Transform& X_WB = poses[static_cast<std::size_t>(b)];
            Vec6 f = Vec6::Zero();
            if (k < 3) {
                f.tail<3>() = it.value() * Vec3::Unit(k);
                f.head<3>() = X_WB.p.cross(Vec3(f.tail<3>()));
            } else {
                f.head<3>() = X_WB.R * Vec3(it.value() * Vec3::Unit(k - 3));
            }
            for (int l = link; l >= 0; l = tree.links[static_cast<std::size_t>(l)].parent) {
                const JointTree::Link& on = tree.links[static_cast<std::size_t>(l)];
                for (int c = on.iv; c < on.iv + on.nv; ++c)
                    Js(row, c) += s[static_cast<std::size_t>(c)].dot(f);
            }
        }
    hold = h * ws.softStiffness + ws.softDamping;  // (h K + C) per row
    softMass.noalias() = h * Js.transpose() * hold.asDiagonal() * Js;
    rate.noalias() = Js * qd;
    rateStart.noalias() = Js * qdn;
    const Eigen::VectorXd pull = hold.cwiseProduct(rate) - ws.softDamping.cwiseProduct(rateStart);
    thread_local std::vector<int> free;
    freeRates(model, tree, free);
    const Eigen::Index nf = static_cast<Eigen::Index>(free.size());
    r.noalias() = -h * (Js.transpose() * pull);
    prescribed.setZero(tree.nv);
    if (nf == 0) {
        prescribed = -r;
        return {};
    }
    massMatrix(model, tree, poses, s, M);
    M += softMass;
    x.resize(nf);
    for (Eigen::Index a = 0; a < nf; ++a) x(a) = r(free[static_cast<std::size_t>(a)]);
    if (tree.closed()) {
        // The change keeps the loops' velocity rows: x − Y S⁻¹ J_F x in the metric M + softMass.
        thread_local std::vector<BodyFrame> frames;
        thread_local LoopRows loop;
        thread_local LoopClosure closure;
        framesOfLinks(model, tree, poses, V, frames);
        loopRows(model, tree, frames, s, nullptr, true, loop);
        if (!closure.factor(M, loop.J, free))
            return Status::failure(
                "the joint-space mass matrix with the soft joints' stiffness "
                "is not positive definite at t = " +
                timeText(state.t));
        closure.solveMass(x);
        closure.correction(closure.JF() * x, dx);
        x += dx;
    } else {
        thread_local Eigen::MatrixXd MFF;
        MFF.resize(nf, nf);
        for (Eigen::Index a = 0; a < nf; ++a)
            for (Eigen::Index b = 0; b < nf; ++b)
                MFF(a, b) = M(free[static_cast<std::size_t>(a)], free[static_cast<std::size_t>(b)]);
        const Eigen::LLT<Eigen::MatrixXd> llt(MFF);
        if (llt.info() != Eigen::Success)
            return Status::failure(
                "the joint-space mass matrix with the soft joints' stiffness "
                "is not positive definite at t = " +
                timeText(state.t));
        x = llt.solve(x);
    }
    dx.setZero(tree.nv);
    for (Eigen::Index a = 0; a < nf; ++a) dx(free[static_cast<std::size_t>(a)]) = x(a);
    qd += dx;
    if (static_cast<int>(nf) < tree.nv) {  // (M + softMass) Δ − r on the prescribed rates
        prescribed.noalias() = M * dx;
        prescribed -= r;
        for (Eigen::Index a = 0; a < nf; ++a) prescribed(free[static_cast<std::size_t>(a)]) = 0.0;
    }
    return {};
}

Status jointSpaceImpulseResponses(const Model& model, const JointTree& tree, const State& state,
                                  const std::vector<BodyRow>& rows, ImpulseResponses& out,
                                  const Eigen::MatrixXd* addedMass) {
    thread_local Eigen::VectorXd q, qd, z;
    thread_local std::vector<Transform> poses;
    thread_local std::vector<Vec6> s, V, Vz;
    thread_local std::vector<Mat3> R;
    linkStateFromBodies(model, tree, state.q, state.v, state.jointCoordinates, q, qd, poses, s, V);
    massMatrix(model, tree, poses, s, out.M);
    if (addedMass && addedMass->rows() == out.M.rows()) out.M += *addedMass;
    R.resize(model.bodies.size());
    for (const JointTree::Link& link : tree.links)
        R[static_cast<std::size_t>(link.body)] =
            poses[static_cast<std::size_t>(link.body)].rotationMatrix();
    // Each row over the rates: a row's entries e on a body's twist are the spatial force
    // f = (p × e_v + R e_ω, e_v) about the world origin, and its column for a rate of a link on
    // the body's path to the root s·f (as the loops' rows, loopRows).
    const Eigen::Index m = static_cast<Eigen::Index>(rows.size());
    out.rowsInRates.setZero(tree.nv, m);
    for (Eigen::Index r = 0; r < m; ++r) {
        const BodyRow& row = rows[static_cast<std::size_t>(r)];
        for (int side = 0; side < 2; ++side) {
            const int b = side == 0 ? row.bodyA : row.bodyB;
            if (b == kGround) continue;
            const Vec6& e = side == 0 ? row.onA : row.onB;
            const int link = tree.linkOfBody[static_cast<std::size_t>(b)];
            if (link < 0 || e.isZero(0.0)) continue;  // (a part on no link cannot move)
            Vec6 f;
            f.head<3>() = poses[static_cast<std::size_t>(b)].p.cross(Vec3(e.head<3>())) +
                          R[static_cast<std::size_t>(b)] * e.tail<3>();
            f.tail<3>() = e.head<3>();
            for (int k = link; k >= 0; k = tree.links[static_cast<std::size_t>(k)].parent) {
                const JointTree::Link& on = tree.links[static_cast<std::size_t>(k)];
                for (int c = on.iv; c < on.iv + on.nv; ++c)
                    out.rowsInRates(c, r) += s[static_cast<std::size_t>(c)].dot(f);
            }
        }
    }
    // Z over the free rates: M_FF Z_F = j_Fᵀ.
    thread_local std::vector<int> free;
    freeRates(model, tree, free);
    const Eigen::Index nf = static_cast<Eigen::Index>(free.size());
    thread_local Eigen::MatrixXd MFF, ZF;
    MFF.resize(nf, nf);
    ZF.resize(nf, m);
    for (Eigen::Index a = 0; a < nf; ++a) {
        const int ka = free[static_cast<std::size_t>(a)];
        for (Eigen::Index b = 0; b < nf; ++b)
            MFF(a, b) = out.M(ka, free[static_cast<std::size_t>(b)]);
        ZF.row(a) = out.rowsInRates.row(ka);
    }
    if (tree.closed()) {
        // Each column kept on the loops' and couplers' velocity rows: z = x − Y Λ with
        // x = M_FF⁻¹ j_F and S Λ = J_F x (the closure's Schur complement, its dependent rows
        // dropped as the accelerations drop them).
        thread_local std::vector<BodyFrame> frames;
        thread_local LoopRows loop;
        thread_local LoopClosure closure;
        thread_local Eigen::VectorXd x, r, lambda;
        framesOfLinks(model, tree, poses, V, frames);
        loopRows(model, tree, frames, s, nullptr, true, loop);
        if (!closure.factor(out.M, loop.J, free))
            return Status::failure("the joint-space mass matrix is not positive definite at t = " +
                                   timeText(state.t) + " (a part of no mass on a joint?)");
        out.loopImpulses.setZero(tree.cutRows, m);
        for (Eigen::Index c = 0; c < m; ++c) {
            // (a row that pushes no free rate, a stop's two friction rows among them: moves
            // nothing, takes no loop impulse)
            if (ZF.col(c).isZero(0.0)) continue;
            x = ZF.col(c);
            closure.solveMass(x);
            r.noalias() = closure.JF() * x;
            closure.multipliers(r, lambda);
            x.noalias() -= closure.Y() * lambda;
            ZF.col(c) = x;
            out.loopImpulses.col(c) = lambda;
        }
    } else {
        // M is block-diagonal over the tree's branches from the ground (a free part, a chain):
        // each branch's block factored alone, and solved for the rows that push it only.
        thread_local std::vector<int> branchOfRate, members;
        thread_local Eigen::LLT<Eigen::MatrixXd> llt;
        thread_local Eigen::MatrixXd block, columns;
        thread_local std::vector<Eigen::Index> pushedColumns;
        branchOfRate.assign(static_cast<std::size_t>(tree.nv), -1);
        for (std::size_t k = 0; k < tree.links.size(); ++k) {
            int root = static_cast<int>(k);
            while (tree.links[static_cast<std::size_t>(root)].parent >= 0)
                root = tree.links[static_cast<std::size_t>(root)].parent;
            const JointTree::Link& link = tree.links[k];
            for (int c = link.iv; c < link.iv + link.nv; ++c)
                branchOfRate[static_cast<std::size_t>(c)] = root;
        }
        for (std::size_t k = 0; k < tree.links.size(); ++k) {
            if (tree.links[k].parent >= 0) continue;  // (a branch: from its root link)
            members.clear();
            for (Eigen::Index a = 0; a < nf; ++a)
                if (branchOfRate[static_cast<std::size_t>(free[static_cast<std::size_t>(a)])] ==
                    static_cast<int>(k))
                    members.push_back(static_cast<int>(a));
            if (members.empty()) continue;
            const Eigen::Index size = static_cast<Eigen::Index>(members.size());
            block = MFF(members, members);
            llt.compute(block);
            if (llt.info() != Eigen::Success)
                return Status::failure(
                    "the joint-space mass matrix is not positive definite at t = " +
                    timeText(state.t) + " (a part of no mass on a joint?)");
            // (the columns that push the branch, solved together: its solution elsewhere is 0,
            // as ZF holds)
            pushedColumns.clear();
            for (Eigen::Index c = 0; c < m; ++c) {
                bool pushed = false;
                for (Eigen::Index a = 0; a < size && !pushed; ++a)
                    pushed = ZF(members[static_cast<std::size_t>(a)], c) != 0.0;
                if (pushed) pushedColumns.push_back(c);
            }
            if (pushedColumns.empty()) continue;
            columns = ZF(members, pushedColumns);
            llt.solveInPlace(columns);
            ZF(members, pushedColumns) = columns;
        }
        out.loopImpulses.resize(0, m);
    }
    out.Z.setZero(tree.nv, m);
    for (Eigen::Index a = 0; a < nf; ++a) out.Z.row(free[static_cast<std::size_t>(a)]) = ZF.row(a);
    // U = T Z: each column's twists down the tree, as the bodies' velocities.
    out.U.setZero(model.velocitySize(), m);
    for (Eigen::Index r = 0; r < m; ++r) {
        z = out.Z.col(r);
        if (z.isZero(0.0)) continue;  // (its twists 0, as U holds)
        linkVelocities(tree, s, z, Vz);
        for (std::size_t k = 0; k < tree.links.size(); ++k) {
            const int b = tree.links[k].body;
            const Vec3 w = Vz[k].head<3>();
            layout::linear(out.U.col(r), b) =
                Vz[k].tail<3>() + w.cross(poses[static_cast<std::size_t>(b)].p);
            layout::angular(out.U.col(r), b) = R[static_cast<std::size_t>(b)].transpose() * w;
        }
    }
    return {};
}

Status jointSpaceAccelerations(const Model& model, const JointTree& tree, double t,
                               const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                               const State& memory, Workspace& ws, Eigen::VectorXd& qdd) {
    Eigen::MatrixXd M;
    Eigen::VectorXd h;
    if (Status s = jointSpaceDynamics(model, tree, t, q, qd, memory, ws, M, h); !s.ok) return s;
    const Eigen::LLT<Eigen::MatrixXd> llt(M);
    if (llt.info() != Eigen::Success)
        return Status::failure("the joint-space mass matrix is not positive definite at t = " +
                               timeText(t) + " (a part of no mass on a joint?)");
    qdd = llt.solve(-h);
    return {};
}

}  // namespace engine
