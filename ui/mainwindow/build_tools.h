#pragma once
// The tools that build a mechanism in the 3D view: place a part from the palette, put a
// marker on a part, connect two parts with a joint, attach a spring, a bushing, a point force
// or torque, a contact pair; and the commands that act on the selection (a motion, a
// controller or a rotational spring on a joint, a part fixed to the ground; a gear pair, a
// rack and pinion, a screw or a linear coupler between joints). Every creation is one
// undoable edit of the document; a joint's creation includes the assembly it causes.
//
// A tool stays active (its toolbar button pressed) until Esc, the Select tool or another tool:
// placing three parts takes three clicks. Shift while clicking on a part snaps to the nearest
// face centre, edge midpoint, vertex or axis of its shape.

#include <optional>
#include <vector>

#include <QObject>
#include <QString>

#include "engine/model/scene_spec.h"
#include "ui/mainwindow/message_severity.h"
#include "ui/viewport/viewport_widget.h"

class QAction;
class QActionGroup;
class QMenu;
class QToolBar;
class QWidget;

namespace ui {

class SceneDocument;

class BuildTools : public QObject {
    Q_OBJECT

public:
    enum class Tool { Select, PlacePart, Marker, Joint, Force, ContactPair, OnJoint, Coupler };

    BuildTools(SceneDocument* document, ViewportWidget* viewport, QWidget* window);

    // Fills the Create menu and the building toolbar (palette, joints, forces).
    void createActions(QMenu* menu, QToolBar* parts, QToolBar* joints, QToolBar* forces);

    Tool tool() const { return tool_; }
    // Starts a tool (Select ends any).
    void placePart(engine::ShapeType type);
    void placeMesh(const QString& file);
    void addMarkers();
    void connectParts(engine::JointType type);
    void attachForce(engine::ForceType type);
    void addContactPairs();
    // A coupler (Create ▸ Coupler): between the two joints selected (in the tree, Ctrl+click)
    // at once; else the joints clicked in the view, the first then the second (a screw: its
    // one cylindrical joint). A single joint selected is taken as the first.
    void addCouplers(engine::CouplerType type);
    void cancel();

    // A click in the view: true when the active tool took it (no selection then).
    bool click(const PickResult& hit, Qt::KeyboardModifiers modifiers);

    // Commands on an entity (the selection): a motion, a controller or a rotational spring on
    // a joint; a fixed joint to the ground for a part. A wrong kind is refused with a reason.
    bool addMotion(engine::EntityId joint);
    bool addOnJoint(engine::ForceType type, engine::EntityId joint);
    bool fixToGround(engine::EntityId part);
    // A coupler of `type` between joints I and J (a screw: I alone), sized from the parts'
    // geometry (engine::addCoupler): joints of the wrong kind are refused with a reason, a
    // rack and pinion picked rack first is taken pinion first.
    bool addCoupler(engine::CouplerType type, engine::EntityId jointI,
                    engine::EntityId jointJ = engine::kNoEntity);

    // The entity selected in the tree or the view: the Motion, controller, rotational spring
    // and Fix commands act on it at once when it fits.
    void setSelection(engine::EntityId entity) {
        selection_ = entity;
        selected_ = {entity};
    }
    // The whole selection (the couplers take two joints from it), the first as above.
    void setSelection(const std::vector<engine::EntityId>& entities) {
        selection_ = entities.empty() ? engine::kNoEntity : entities.front();
        selected_ = entities;
    }

    // The last entity a tool made (tests, selection).
    engine::EntityId lastCreated() const { return lastCreated_; }

signals:
    // `entities`: what it is about, the first the one to select.
    void message(MessageSeverity severity, const QString& text,
                 const std::vector<engine::EntityId>& entities = {});
    void hint(const QString& text);         // what the active tool expects next
    void created(engine::EntityId entity);  // select it
    void toolStarted();                     // a building tool is about to be used
    void toolChanged();                     // a tool started or ended (Select again)

private:
    // One end of a connection: an existing marker, or a point (with its surface normal) on a
    // part, or the ground (a marker is made there, aligned with the other end).
    struct End {
        engine::EntityId marker = engine::kNoEntity;
        engine::EntityId part = engine::kNoEntity;
        bool ground = false;
        engine::Vec3 p_W = engine::Vec3::Zero();
        engine::Vec3 n_W = engine::Vec3::UnitZ();
    };
    void start(Tool tool, const QString& hint);
    // The joint `id` is, or the joint the marker `id` belongs to (kNoEntity: none).
    engine::EntityId jointOf(engine::EntityId id) const;
    std::optional<End> endFrom(const PickResult& hit, Qt::KeyboardModifiers modifiers,
                               bool groundAllowed);
    // The two ends as markers of `spec` (made where needed); false with a reason when they
    // are not on two different parts. A ground end clicked in empty space joins the other
    // end's point, or with `keepGroundPoint` stays where it was clicked.
    bool resolve(engine::SceneSpec& spec, const End& a, const End& b, engine::EntityId& markerI,
                 engine::EntityId& markerJ, QString& reason, bool keepGroundPoint = false);
    engine::EntityId markerAt(engine::SceneSpec& spec, const End& end, const engine::Quat* R_WM);
    void finishPair(const End& second);
    void placeAt(const PickResult& hit);
    bool commitAdd(engine::SceneSpec after, engine::EntityId created, const QString& text);
    // Why `joint` cannot be a coupler's joint `which` (0: I, 1: J) of `type`; empty: it can.
    QString couplerMisfit(engine::CouplerType type, engine::EntityId joint, int which) const;
    void pickCouplerJoint(engine::EntityId joint);

    SceneDocument* document_;
    ViewportWidget* viewport_;
    QWidget* window_;
    QActionGroup* group_ = nullptr;
    QAction* selectAction_ = nullptr;
    Tool tool_ = Tool::Select;
    engine::ShapeType shape_ = engine::ShapeType::Box;
    QString meshFile_;
    engine::JointType jointType_ = engine::JointType::Revolute;
    engine::ForceType forceType_ = engine::ForceType::SpringDamper;
    enum class OnPick { Motion, Force, Fix } onPick_ = OnPick::Motion;  // Tool::OnJoint
    std::optional<End> first_;
    QString hint_;  // what the active tool asks for first
    engine::EntityId lastCreated_ = engine::kNoEntity;
    engine::EntityId selection_ = engine::kNoEntity;
    std::vector<engine::EntityId> selected_;
    engine::CouplerType couplerType_ = engine::CouplerType::Gear;  // Tool::Coupler
    engine::EntityId firstJoint_ = engine::kNoEntity;              // its first pick
    int colourIndex_ = 0;
};

// Moves the part a new joint leaves free so the joint's two markers coincide (the part
// clicked second, or else the first; parts held by other joints stay for the assembly). A
// distance joint's and a cam pair's parts stay where they are.
void mate(engine::SceneSpec& spec, engine::EntityId joint);

}  // namespace ui
