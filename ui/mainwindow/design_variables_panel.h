#pragma once
// The Design Variables panel (View ▸ Design Variables): the scene's design variables
// (engine/io/design_variables.h), each with a slider over its range and its value, which
// re-evaluate every field bound to it and re-assemble the mechanism as they move (one undo step
// per drag); the fields bound to them, with Bind… (a numeric field of any element to an
// expression of the variables) and Unbind; and Study…, the study table (study_dialog.h).

#include <memory>

#include <QString>
#include <QWidget>

class QDoubleSpinBox;
class QSlider;

namespace ui {

class SceneDocument;
class StudyDialog;

class DesignVariablesPanel : public QWidget {
    Q_OBJECT

public:
    explicit DesignVariablesPanel(SceneDocument* document, QWidget* parent = nullptr);
    ~DesignVariablesPanel() override;

    // Gives the design variable `name` a value as its slider does: the bound fields follow and
    // the mechanism is assembled again. False with `problem` when the edit is refused.
    bool setValue(const QString& name, double value, QString* problem = nullptr);
    // Adds a design variable (false with `problem` when its name cannot be one).
    bool addVariable(const QString& name, double value, QString* problem = nullptr);
    // Renames a design variable, in its bound fields and the expressions that read it.
    bool renameVariable(const QString& from, const QString& to, QString* problem = nullptr);
    // Binds the field at `pointer` ("/parts/1/mass") to `expression` as Bind… does.
    bool bind(const QString& pointer, const QString& expression, QString* problem = nullptr);
    bool unbind(const QString& pointer);

    int variableCount() const;
    QSlider* slider(int variable) const;
    QDoubleSpinBox* valueBox(int variable) const;
    int boundFieldCount() const;  // rows of the bound fields' list
    QString status() const;       // the line under the lists: a refusal, an assembly problem

    // The study table, made on first use.
    StudyDialog* study();

public slots:
    void refresh();

private:
    void rebuildRows();
    void showBindings();
    void addAsked();
    void removeAsked();
    void renameAsked();
    void bindAsked();
    void unbindSelected();
    void setStatus(const QString& text, bool problem);
    // An edit's end: its refusal in the status line and in `problem` (false), or the status
    // line cleared (true) when `refusal` is empty.
    bool outcome(const QString& refusal, QString* problem);

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ui
