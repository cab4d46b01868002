#include "ui/properties/properties_panel.h"

#include "engine/analysis/state_value.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>

#include <QCheckBox>
#include <QColorDialog>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTextDocument>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "engine/io/design_variables.h"
#include "engine/io/mesh_loader.h"
#include "engine/model/edit.h"
#include "engine/model/mass_properties.h"
#include "engine/model/state_functions.h"
#include "ui/common/text.h"
#include "ui/properties/expression_editor.h"
#include "ui/properties/property_fields.h"

namespace ui {
namespace {

using engine::SceneSpec;

QString number(double v) {
    return numberText(v);
}

// A number in its field, whole: the field is wide enough for what it shows and shows it from
// its first character (a field scrolled to its end read "325926" for 0.325926), and the
// tooltip holds the value to the last digit that tells it apart.
void showNumber(QLineEdit* edit, double value) {
    const QString text = number(value);
    edit->setText(text);
    edit->setCursorPosition(0);
    const QString full = QString::number(value, 'g', QLocale::FloatingPointShortest);
    edit->setToolTip(
        QObject::tr(
            "%1\n↑/↓ or the wheel (once clicked into) step the value; Shift: ten times more")
            .arg(full));
    const QMargins margins = edit->textMargins();
    edit->setMinimumWidth(std::max(
        48, edit->fontMetrics().horizontalAdvance(text) + margins.left() + margins.right() + 14));
}

// What an expression of the state may name, offered as the user types: the measures (with
// their opening parenthesis), the helpers, time and pi, the scene's variables and design
// variables, its parts,
// markers as "part.marker" and joints.
QStringList stateCompletions(const SceneSpec& spec) {
    QStringList words;
    for (int k = 0; k < engine::kMeasureKinds; ++k)
        words << toQString(engine::measureKindName(static_cast<engine::MeasureKind>(k))) +
                     QStringLiteral("(");
    for (const char* helper : {"step(", "impact(", "bistop(", "if(", "clamp(", "haversine(", "sin(",
                               "cos(", "sqrt(", "abs(", "min(", "max("})
        words << QString::fromLatin1(helper);
    words << QStringLiteral("time") << QStringLiteral("pi");
    for (const engine::VariableSpec& v : spec.variables) words << toQString(v.name);
    for (const engine::DesignVariableSpec& v : spec.designVariables) words << toQString(v.name);
    for (const engine::Part& part : spec.parts) {
        words << toQString(part.name);
        for (const engine::Marker& m : part.markers) words << toQString(part.name + "." + m.name);
    }
    for (const engine::Joint& j : spec.joints) words << toQString(j.name);
    words.removeDuplicates();
    return words;
}

}  // namespace

PropertiesPanel::PropertiesPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    title_ = new QLabel;
    title_->setObjectName(QStringLiteral("PropertiesTitle"));
    QFont bold = title_->font();
    bold.setBold(true);
    title_->setFont(bold);
    layout->addWidget(title_);
    scroll_ = new QScrollArea;
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    // Narrower than its fields (a dock made small), the panel scrolls sideways: a unit or the
    // end of a number is never cut off unseen.
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    layout->addWidget(scroll_, 1);
}

PropertiesPanel::~PropertiesPanel() = default;

void PropertiesPanel::showEntity(const SceneSpec* spec, engine::EntityId id, int shape) {
    spec_ = spec;
    id_ = id;
    shape_ = shape;
    variable_ = -1;
    sensor_ = -1;
    table_ = -1;
    rebuild();
}

void PropertiesPanel::showVariable(const SceneSpec* spec, int index) {
    spec_ = spec;
    id_ = engine::kNoEntity;
    shape_ = 0;
    variable_ = spec && index >= 0 && index < static_cast<int>(spec->variables.size()) ? index : -1;
    sensor_ = -1;
    table_ = -1;
    rebuild();
}

void PropertiesPanel::showSensor(const SceneSpec* spec, int index) {
    spec_ = spec;
    id_ = engine::kNoEntity;
    shape_ = 0;
    variable_ = -1;
    sensor_ = spec && index >= 0 && index < static_cast<int>(spec->sensors.size()) ? index : -1;
    table_ = -1;
    rebuild();
}

void PropertiesPanel::showTable(const SceneSpec* spec, int index) {
    spec_ = spec;
    id_ = engine::kNoEntity;
    shape_ = 0;
    variable_ = -1;
    sensor_ = -1;
    table_ = spec && index >= 0 && index < static_cast<int>(spec->tables.size()) ? index : -1;
    rebuild();
}

void PropertiesPanel::setMarkerInWorld(bool world) {
    markerInWorld_ = world;
    rebuild();
}

void PropertiesPanel::defineFields() {
    FieldOptions options;
    options.shape = shape_;
    options.markerInWorld = markerInWorld_;
    options.setMarkerInWorld = [this](bool world) { setMarkerInWorld(world); };
    options.dialogParent = this;
    options.variable = variable_;
    options.sensor = sensor_;
    options.table = table_;
    title_->setText(ui::defineFields(*spec_, id_, options, fields_));
}

void PropertiesPanel::refreshValues() {
    const SceneSpec& spec = *spec_;
    for (auto& owned : fields_) {
        Field& f = *owned;
        switch (f.kind) {
        case Field::Kind::Number:
        case Field::Kind::Vector: {
            const Numbers values = f.getNumbers(spec);
            for (int k = 0; k < 3; ++k)
                if (f.edits[k])
                    showNumber(f.edits[k], values[static_cast<std::size_t>(k)] * f.scale);
            break;
        }
        case Field::Kind::Text:
        case Field::Kind::Colour:
            f.edits[0]->setText(QString::fromStdString(f.getText(spec)));
            f.edits[0]->setCursorPosition(0);  // read from its start, not its tail
            f.edits[0]->setToolTip(f.edits[0]->text());
            break;
        case Field::Kind::Switch: {
            const QSignalBlocker block(f.check);
            f.check->setChecked(f.getSwitch(spec));
            break;
        }
        case Field::Kind::Choice: {
            const QSignalBlocker block(f.combo);
            f.combo->setCurrentText(QString::fromStdString(f.getText(spec)));
            break;
        }
        case Field::Kind::Expression:
            if (f.plotted && spec_) f.expression->setTables(engine::sceneTables(*spec_));
            if (!f.variable.isEmpty()) f.expression->setPreviewRange(f.rangeStart, f.rangeEnd);
            f.expression->setText(QString::fromStdString(f.getText(spec)));
            break;
        case Field::Kind::Points: {
            const QString text = QString::fromStdString(f.getText(spec));
            if (f.lines->toPlainText() != text) f.lines->setPlainText(text);
            break;
        }
        case Field::Kind::Info:
            if (f.infoLabel) f.infoLabel->setText(f.info);
            break;
        case Field::Kind::Button:
        case Field::Kind::Heading:
            break;
        }
    }
    markBoundNumbers();
}

QString PropertiesPanel::filePointer(const Field& f, int component) const {
    if (!spec_ || (f.kind != Field::Kind::Number && f.kind != Field::Kind::Vector) ||
        f.key.isEmpty())
        return {};
    QString base;
    if (variable_ >= 0)
        base = QStringLiteral("/variables/%1").arg(variable_);
    else if (sensor_ >= 0)
        base = QStringLiteral("/sensors/%1").arg(sensor_);
    else if (table_ >= 0)
        base = QStringLiteral("/tables/%1").arg(table_);
    else if (const std::optional<std::string> at = spec_->pointerOf(id_))
        base = toQString(*at);
    else
        return {};
    const bool marker = base.contains(QStringLiteral("/markers/"));
    QStringList steps = f.key.split(u'.');
    if (steps.front() == QStringLiteral("shape")) {
        if (shape_ <= 0) return {};
        steps.front() = QStringLiteral("geometry/%1").arg(shape_ - 1);
    }
    if (marker && markerInWorld_ && steps.front() == QStringLiteral("position")) return {};
    QString pointer = base + u'/' + steps.join(u'/');
    if (f.kind == Field::Kind::Vector) pointer += u'/' + QString::number(component);
    return pointer;
}

void PropertiesPanel::markBoundNumbers() {
    if (!spec_) return;
    std::map<QString, QString> bound;  // pointer → expression
    if (!spec_->bindings.empty())
        for (const engine::io::BoundField& b : engine::io::boundFields(*spec_))
            bound[toQString(b.pointer)] = toQString(b.expression);
    for (auto& owned : fields_)
        for (int k = 0; k < 3; ++k) {
            QLineEdit* edit = owned->edits[k];
            if (!edit || (owned->kind != Field::Kind::Number && owned->kind != Field::Kind::Vector))
                continue;
            const auto it = bound.find(filePointer(*owned, k));
            if (it == bound.end()) {
                edit->setStyleSheet(QString());
                continue;
            }
            edit->setStyleSheet(QStringLiteral("background: #dcebfa;"));
            edit->setToolTip(tr("= %1 (bound to design variables: it follows them; a number "
                                "typed here replaces the binding)\n%2")
                                 .arg(it->second, edit->toolTip()));
        }
}

void PropertiesPanel::setFrameState(std::function<std::optional<engine::State>()> frame) {
    frame_ = std::move(frame);
    frameChanged();
}

void PropertiesPanel::frameChanged() {
    // At most five times a second while a run publishes frames: each value compiles the scene.
    if (!frameTimer_) {
        frameTimer_ = new QTimer(this);
        frameTimer_->setSingleShot(true);
        frameTimer_->setInterval(200);
        connect(frameTimer_, &QTimer::timeout, this, [this] {
            for (auto& owned : fields_)
                if (owned->expression && owned->ofState) owned->expression->refreshStateValue();
        });
    }
    if (!frameTimer_->isActive()) frameTimer_->start();
}

void PropertiesPanel::rebuild() {
    std::vector<std::unique_ptr<Field>> previous = std::move(fields_);
    fields_.clear();
    if (spec_)
        defineFields();
    else
        title_->setText(tr("No scene"));
    // The same entity with the same fields (an edit of a value): the editors stay, keyboard
    // focus and scrolling with them, and show the new values. Stepping a value with the arrow
    // keys keeps working across the edits it makes.
    const bool sameFields =
        spec_ && id_ == shownId_ && shape_ == shownShape_ && variable_ == shownVariable_ &&
        sensor_ == shownSensor_ && table_ == shownTable_ && !previous.empty() &&
        previous.size() == fields_.size() &&
        std::equal(
            previous.begin(), previous.end(), fields_.begin(), [](const auto& a, const auto& b) {
                return a->kind == b->kind && a->label == b->label && a->key == b->key &&
                       a->unit == b->unit && a->choices == b->choices && a->scale == b->scale;
            });
    if (sameFields) {
        for (std::size_t k = 0; k < fields_.size(); ++k) previous[k]->adopt(*fields_[k]);
        fields_ = std::move(previous);
        refreshValues();
        return;
    }
    shownId_ = id_;
    shownShape_ = shape_;
    shownVariable_ = variable_;
    shownSensor_ = sensor_;
    shownTable_ = table_;
    // A rebuild can come from inside an editor's own signal (an edit applied): the old editors
    // are disconnected and deleted later, never under their own feet.
    for (const auto& f : previous) {
        for (QLineEdit* edit : f->edits)
            if (edit) edit->disconnect(this);
        if (f->check) f->check->disconnect(this);
        if (f->combo) f->combo->disconnect(this);
        if (f->expression) f->expression->disconnect(this);
        if (f->lines) f->lines->removeEventFilter(this);
        if (f->button) f->button->disconnect(this);
    }
    previous.clear();
    const int scrolled = scroll_->verticalScrollBar()->value();
    if (QWidget* old = scroll_->takeWidget()) {
        old->hide();
        old->deleteLater();
    }
    body_ = new QWidget;
    auto* column = new QVBoxLayout(body_);
    column->setContentsMargins(0, 0, 0, 0);
    form_ = new QFormLayout;
    column->addLayout(form_);
    column->addStretch(1);  // fields keep their natural height; the space left goes below them
    form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form_->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form_->setContentsMargins(0, 0, 0, 0);
    if (!spec_) {
        scroll_->setWidget(body_);
        return;
    }
    const SceneSpec& spec = *spec_;
    // Editors for the fields, filled with the current values.
    for (auto& owned : fields_) {
        Field& f = *owned;
        if (f.kind == Field::Kind::Heading) {
            auto* label = new QLabel(f.label);
            QFont font = label->font();
            font.setBold(true);
            label->setFont(font);
            label->setContentsMargins(0, 8, 0, 0);
            label->setWordWrap(true);  // a long heading wraps in a narrow dock
            form_->addRow(label);
            continue;
        }
        if (f.kind == Field::Kind::Button) {
            f.button = new QPushButton(f.label);
            connect(f.button, &QPushButton::clicked, this, [this, &f] { commitField(f); });
            form_->addRow(QString(), f.button);
            continue;
        }
        QWidget* row = makeEditorRow(f, spec);
        auto* label = new QLabel(f.label);
        label->setWordWrap(true);
        // What the scene format says of the key: meaning, range and default.
        const QString help =
            !f.help.isEmpty() || f.key.isEmpty() ? f.help : tr("Scene file key: %1").arg(f.key);
        label->setToolTip(help);
        row->setToolTip(help);
        form_->addRow(label, row);
    }
    markBoundNumbers();
    scroll_->setWidget(body_);
    scroll_->verticalScrollBar()->setValue(scrolled);
}

// The editors of one field, filled with its value, and the line under them that says why an
// edit was refused.
QWidget* PropertiesPanel::makeEditorRow(Field& f, const SceneSpec& spec) {
    auto* row = new QWidget;
    auto* rowLayout = new QVBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    auto* line = new QHBoxLayout;
    switch (f.kind) {
    case Field::Kind::Switch:
        f.check = new QCheckBox;
        f.check->setChecked(f.getSwitch(spec));
        connect(f.check, &QCheckBox::toggled, this, [this, &f](bool on) {
            if (f.local)
                f.local(on);
            else
                commitField(f);
        });
        line->addWidget(f.check);
        break;
    case Field::Kind::Text:
    case Field::Kind::Colour:
        f.edits[0] = new QLineEdit(QString::fromStdString(f.getText(spec)));
        f.edits[0]->setCursorPosition(0);  // read from its start, not its tail
        f.edits[0]->setToolTip(f.edits[0]->text());
        line->addWidget(f.edits[0]);
        if (f.kind == Field::Kind::Colour) {
            auto* pick = new QToolButton;
            pick->setText(QStringLiteral("…"));
            pick->setToolTip(tr("Choose a colour"));
            pick->setStyleSheet(QStringLiteral("background: %1;").arg(f.edits[0]->text()));
            connect(pick, &QToolButton::clicked, this, [this, &f] {
                const QColor colour =
                    QColorDialog::getColor(QColor(f.edits[0]->text()), this, tr("Part colour"));
                if (!colour.isValid()) return;
                f.edits[0]->setText(colour.name());
                commitField(f);
            });
            line->addWidget(pick);
        }
        break;
    case Field::Kind::Choice: {
        f.combo = new QComboBox;
        f.combo->addItems(f.choices);
        const QString current = QString::fromStdString(f.getText(spec));
        if (f.combo->findText(current) < 0) f.combo->addItem(current);  // e.g. a dangling reference
        f.combo->setCurrentText(current);
        connect(f.combo, &QComboBox::activated, this, [this, &f] { commitField(f); });
        line->addWidget(f.combo, 1);
        break;
    }
    case Field::Kind::Expression:
        f.expression = new ExpressionEditor;
        f.expression->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
        f.expression->setUnit(f.unit);
        if (!f.variable.isEmpty()) {
            f.expression->setVariable(f.variable, f.variableUnit, f.plotted);
            if (f.plotted && spec_) f.expression->setTables(engine::sceneTables(*spec_));
            f.expression->setPreviewRange(f.rangeStart, f.rangeEnd);
            if (!f.plotted) f.expression->setMinimumWidth(80);  // no plot: as narrow as the dock
        }
        if (f.ofState) {
            // Measures and variables are checked against the scene shown when the text is.
            f.expression->setStateParser([this](const std::string& text, std::string& error,
                                                bool& readsState) {
                engine::StateText split;
                std::optional<engine::Expression> parsed =
                    spec_ ? engine::parseStateExpression(*spec_, text, split, error) : std::nullopt;
                readsState = parsed && split.usesState();
                return parsed;
            });
            // Its value at the frame on screen.
            f.expression->setStateValue(
                [this](const std::string& text,
                       std::string& error) -> std::optional<ExpressionEditor::FrameValue> {
                    if (!spec_ || !frame_) return std::nullopt;
                    const std::optional<engine::State> state = frame_();
                    if (!state) return std::nullopt;
                    const std::optional<double> value =
                        engine::stateExpressionValue(*spec_, *state, text, error);
                    if (!value) return std::nullopt;
                    return ExpressionEditor::FrameValue{*value, state->t};
                });
        } else if (f.variable.isEmpty())
            // A function of time: the scene's design variables are its named constants.
            f.expression->setStateParser(
                [this](const std::string& text, std::string& error, bool& readsState) {
                    readsState = false;
                    return spec_ ? engine::Expression::parseWithConstants(
                                       text, error, engine::designConstants(*spec_), {},
                                       engine::sceneTables(*spec_))
                                 : engine::Expression::parse(text, error);
                });
        if (f.ofState && spec_) f.expression->setCompletions(stateCompletions(*spec_));
        f.expression->setText(QString::fromStdString(f.getText(spec)));
        connect(f.expression, &ExpressionEditor::committed, this, [this, &f] { commitField(f); });
        line->addWidget(f.expression);
        break;
    case Field::Kind::Points: {
        // One point a line; applied when the field is left or with Ctrl+Return (Return starts
        // a new line). Tall enough for a few points, scrolled for more.
        f.lines = new QPlainTextEdit(QString::fromStdString(f.getText(spec)));
        f.lines->setLineWrapMode(QPlainTextEdit::NoWrap);
        f.lines->setTabChangesFocus(true);
        f.lines->setPlaceholderText(tr("one point a line: x, y, z"));
        f.lines->setToolTip(tr("<p>One point a line: x, y, z (commas, spaces or tabs between "
                               "them). Leaving the field or <b>Ctrl+Return</b> applies the "
                               "list; <b>Return</b> starts a new line.</p>") +
                            f.help);
        f.lines->installEventFilter(this);
        f.lines->setMinimumWidth(80);  // as narrow as the dock: it scrolls sideways itself
        const int shown = std::clamp(static_cast<int>(f.lines->document()->blockCount()), 4, 10);
        f.lines->setFixedHeight(f.lines->fontMetrics().lineSpacing() * shown + 12);
        line->addWidget(f.lines);
        break;
    }
    case Field::Kind::Info: {
        auto* label = new QLabel(f.info);
        f.infoLabel = label;
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        label->setStyleSheet(QStringLiteral("color: palette(mid);"));
        line->addWidget(label);
        break;
    }
    default: {
        const Numbers values = f.getNumbers(spec);
        for (int k = 0; k < (f.kind == Field::Kind::Vector ? 3 : 1); ++k) {
            f.edits[k] = new QLineEdit;
            f.edits[k]->installEventFilter(this);  // arrow keys and the wheel step the value
            f.edits[k]->setAlignment(Qt::AlignRight);
            showNumber(f.edits[k], values[static_cast<std::size_t>(k)] * f.scale);
            line->addWidget(f.edits[k]);
        }
    }
    }
    for (QLineEdit* edit : f.edits)
        if (edit) connect(edit, &QLineEdit::editingFinished, this, [this, &f] { commitField(f); });
    if (!f.unit.isEmpty() && f.kind != Field::Kind::Expression) line->addWidget(new QLabel(f.unit));
    rowLayout->addLayout(line);
    f.message = new QLabel;
    f.message->setWordWrap(true);
    f.message->setStyleSheet(QStringLiteral("color: #d9534f;"));
    f.message->hide();
    rowLayout->addWidget(f.message);
    return row;
}

void PropertiesPanel::commitField(Field& f) {
    if (!spec_) return;
    SceneSpec after = *spec_;
    auto refuse = [&](const QString& reason) {
        if (!f.message) return;
        f.message->setText(reason);
        f.message->show();
    };
    if (f.message) f.message->hide();
    switch (f.kind) {
    case Field::Kind::Heading:
    case Field::Kind::Info:
        return;
    case Field::Kind::Button:
        f.action(after);
        break;
    case Field::Kind::Switch:
        f.setSwitch(after, f.check->isChecked());
        break;
    case Field::Kind::Choice:
    case Field::Kind::Expression:
    case Field::Kind::Text:
    case Field::Kind::Colour:
    case Field::Kind::Points: {
        const QString shown = f.kind == Field::Kind::Choice       ? f.combo->currentText()
                              : f.kind == Field::Kind::Expression ? f.expression->text()
                              : f.kind == Field::Kind::Points     ? f.lines->toPlainText()
                                                                  : f.edits[0]->text();
        const std::string text = shown.trimmed().toStdString();
        if (text == f.getText(*spec_)) return;
        if (f.kind == Field::Kind::Expression && !f.expression->isValid())
            return refuse(f.expression->error());
        if (f.checkText) {
            if (const QString reason = f.checkText(text); !reason.isEmpty()) return refuse(reason);
        }
        f.setText(after, text);
        break;
    }
    case Field::Kind::Number:
    case Field::Kind::Vector: {
        Numbers values = f.getNumbers(*spec_);
        bool changed = false;
        for (int k = 0; k < 3 && f.edits[k]; ++k) {
            bool ok = false;
            const double shown = f.edits[k]->text().trimmed().toDouble(&ok);
            if (!ok || !std::isfinite(shown))
                return refuse(tr("'%1' is not a number").arg(f.edits[k]->text()));
            if (f.integer && shown != std::round(shown))
                return refuse(tr("'%1' is not a whole number").arg(f.edits[k]->text()));
            // Only values the user changed are taken back (a shown value is rounded).
            if (f.edits[k]->text().trimmed() !=
                number(values[static_cast<std::size_t>(k)] * f.scale)) {
                values[static_cast<std::size_t>(k)] = shown / f.scale;
                changed = true;
            }
        }
        if (!changed) return;
        f.setNumbers(after, values);
        break;
    }
    }
    // The edit must not break the scene: the document refuses a problem it brings (one the
    // scene did not have before) with its reason, which stays beside the field (refuseEdit).
    const QString what = f.kind == Field::Kind::Button
                             ? f.label
                             : tr("Edit %1 of %2").arg(f.label.toLower(), title_->text().toLower());
    refusal_.clear();
    editedField_ = f.label;
    emit editRequested(after, what,
                       f.kind == Field::Kind::Button ? QString()
                       : variable_ >= 0
                           ? QStringLiteral("variable %1/%2").arg(variable_).arg(f.label)
                       : sensor_ >= 0 ? QStringLiteral("sensor %1/%2").arg(sensor_).arg(f.label)
                       : table_ >= 0  ? QStringLiteral("table %1/%2").arg(table_).arg(f.label)
                                      : QStringLiteral("%1/%2").arg(id_).arg(f.label));
    if (refusal_.isEmpty()) return;
    // Buttons have no line of their own: the reason goes under the title.
    if (f.kind == Field::Kind::Button) title_->setToolTip(refusal_);
    refuse(refusal_);
}

void PropertiesPanel::refuseEdit(const QString& reason) {
    refusal_ = reason;
}

bool PropertiesPanel::eventFilter(QObject* watched, QEvent* event) {
    // A list of points is applied when it is left, or with Ctrl+Return.
    if (event->type() == QEvent::FocusOut || event->type() == QEvent::KeyPress) {
        for (auto& f : fields_) {
            if (!f->lines || f->lines != watched) continue;
            if (event->type() == QEvent::FocusOut) {
                commitField(*f);
                break;
            }
            const auto* key = static_cast<QKeyEvent*>(event);
            if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
                (key->modifiers() & Qt::ControlModifier)) {
                commitField(*f);
                return true;
            }
            return QWidget::eventFilter(watched, event);
        }
    }
    int direction = 0;
    bool coarse = false;
    if (event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Up) direction = 1;
        if (key->key() == Qt::Key_Down) direction = -1;
        coarse = key->modifiers() & Qt::ShiftModifier;
    } else if (event->type() == QEvent::Wheel && static_cast<QWidget*>(watched)->hasFocus()) {
        const auto* wheel = static_cast<QWheelEvent*>(event);
        direction = wheel->angleDelta().y() > 0 ? 1 : wheel->angleDelta().y() < 0 ? -1 : 0;
        coarse = wheel->modifiers() & Qt::ShiftModifier;
    }
    if (direction == 0) return QWidget::eventFilter(watched, event);
    for (auto& f : fields_)
        for (QLineEdit* edit : f->edits) {
            if (edit != watched) continue;
            bool ok = false;
            const double shown = edit->text().trimmed().toDouble(&ok);
            if (!ok) return true;
            // A step of the value's second significant digit (1° for angles, 1 for whole
            // numbers), ten times that with Shift; each step is an edit, and the steps of one
            // burst merge into one undo step.
            double step = f->integer        ? 1.0
                          : f->scale != 1.0 ? 1.0
                          : shown == 0.0
                              ? 0.001
                              : std::pow(10.0, std::floor(std::log10(std::abs(shown))) - 1.0);
            if (coarse) step *= 10.0;
            showNumber(edit, shown + direction * step);
            commitField(*f);
            return true;
        }
    return QWidget::eventFilter(watched, event);
}

PropertiesPanel::Field* PropertiesPanel::find(const QString& labelOrKey) const {
    auto editable = [](const Field& f) {
        return f.kind != Field::Kind::Heading && f.kind != Field::Kind::Info;
    };
    for (const auto& f : fields_)
        if (f->label == labelOrKey && editable(*f)) return f.get();
    for (const auto& f : fields_)
        if (!f->key.isEmpty() && f->key == labelOrKey) return f.get();
    return nullptr;
}

QWidget* PropertiesPanel::editor(const QString& label, int component) const {
    const Field* f = find(label);
    if (!f) return nullptr;
    switch (f->kind) {
    case Field::Kind::Switch:
        return f->check;
    case Field::Kind::Choice:
        return f->combo;
    case Field::Kind::Expression:
        return f->expression;
    case Field::Kind::Button:
        return f->button;
    case Field::Kind::Points:
        return f->lines;
    default:
        return component >= 0 && component < 3 ? f->edits[component] : nullptr;
    }
}

QWidget* PropertiesPanel::editorForKey(const QString& key, int component) const {
    for (const auto& f : fields_)
        if (f->key == key) return editor(f->label, component);
    return nullptr;
}

QStringList PropertiesPanel::keys() const {
    QStringList out;
    for (const auto& f : fields_)
        if (!f->key.isEmpty() && editor(f->label)) out << f->key;
    return out;
}

QString PropertiesPanel::message(const QString& label) const {
    const Field* f = find(label);
    if (!f || !f->message) return {};
    return f->message->isHidden() ? QString() : f->message->text();
}

void PropertiesPanel::commit(const QString& label) {
    if (Field* f = find(label)) commitField(*f);
}

bool PropertiesPanel::press(const QString& label) {
    Field* f = find(label);
    if (!f || f->kind != Field::Kind::Button) return false;
    commitField(*f);
    return true;
}

}  // namespace ui
