#include "ui/properties/expression_editor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include <QAbstractItemView>
#include <QChart>
#include <QChartView>
#include <QCompleter>
#include <QDoubleSpinBox>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineEdit>
#include <QLineSeries>
#include <QPen>
#include <QSignalBlocker>
#include <QStringListModel>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>

#include "engine/math/constants.h"

namespace ui {
namespace {

constexpr int kDebounceMs = 150;
constexpr int kPlotHeight = 120;  // px
constexpr double kMaxTime = 1e4;  // s, the spin boxes' limits
constexpr double kRadToDeg = engine::radToDeg(1.0);
const QColor kValueColour(31, 119, 180);       // blue
const QColor kDerivativeColour(230, 120, 20);  // orange
const QColor kStaleColour(185, 185, 185);      // the last valid curve while the text is not
const QString kErrorColour = QStringLiteral("#d9534f");  // as the properties panel's messages

QString number(double v) {
    if (std::abs(v) < 1e-13) v = 0.0;
    return QString::number(v, 'g', 4);
}

// The axis range of `values` (non-finite ones skipped), padded; a flat curve gets a readable
// range around its value.
std::pair<double, double> paddedRange(const std::vector<double>& values) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : values)
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    if (!std::isfinite(lo)) return {-1.0, 1.0};
    const double spread = hi - lo;
    const double pad = spread > 1e-9 * std::max(1.0, std::abs(hi))
                           ? 0.05 * spread
                           : std::max(1.0, 0.1 * std::abs(hi));
    return {lo - pad, hi + pad};
}

// A round tick interval (1, 2 or 5 × 10ⁿ) giving about `intervals` intervals over `span`.
double tickInterval(double span, double intervals) {
    const double raw = span / intervals;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    const double fraction = raw / decade;
    return (fraction < 2.0 ? 1.0 : fraction < 5.0 ? 2.0 : 5.0) * decade;
}

// Shows [lo, hi] on `axis` with ticks on round values (multiples of the interval).
void setAxisRange(QValueAxis* axis, double lo, double hi, double intervals) {
    axis->setRange(lo, hi);
    axis->setTickInterval(tickInterval(hi - lo, intervals));
}

QDoubleSpinBox* timeBox(const QString& name, double value) {
    auto* box = new QDoubleSpinBox;
    box->setObjectName(name);
    box->setDecimals(2);
    box->setRange(-kMaxTime, kMaxTime);
    box->setSingleStep(0.5);
    box->setValue(value);
    box->setKeyboardTracking(false);  // a typed number counts once it is finished
    box->setButtonSymbols(QAbstractSpinBox::NoButtons);
    box->setAlignment(Qt::AlignRight);
    box->setMaximumWidth(56);
    return box;
}

}  // namespace

ExpressionEditor::ExpressionEditor(QWidget* parent) : QWidget(parent) {
    edit_ = new QLineEdit;
    edit_->setObjectName(QStringLiteral("ExpressionText"));
    edit_->setPlaceholderText(tr("e.g. 30d*sin(2*pi*time)"));

    message_ = new QLabel;
    message_->setObjectName(QStringLiteral("ExpressionMessage"));
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // The preview: value (left axis) and derivative (right axis) against time, small fonts,
    // no margins to speak of: it sits in a narrow dock.
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.75));
    chart_ = new QChart;
    chart_->setMargins(QMargins(0, 0, 0, 0));
    chart_->layout()->setContentsMargins(0, 0, 0, 0);
    chart_->setBackgroundRoundness(0);
    chart_->legend()->setAlignment(Qt::AlignTop);
    chart_->legend()->setFont(small);
    chart_->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    if (QGraphicsLayout* legendLayout = chart_->legend()->layout())
        legendLayout->setContentsMargins(0, 0, 0, 0);
    timeAxis_ = new QValueAxis;
    valueAxis_ = new QValueAxis;
    derivativeAxis_ = new QValueAxis;
    for (QValueAxis* axis : {timeAxis_, valueAxis_, derivativeAxis_}) {
        axis->setLabelsFont(small);
        axis->setLabelFormat(QStringLiteral("%.3g"));
        axis->setTickType(QValueAxis::TicksDynamic);
        axis->setTickAnchor(0.0);
    }
    derivativeAxis_->setGridLineVisible(false);
    chart_->addAxis(timeAxis_, Qt::AlignBottom);
    chart_->addAxis(valueAxis_, Qt::AlignLeft);
    chart_->addAxis(derivativeAxis_, Qt::AlignRight);
    valueSeries_ = new QLineSeries;
    derivativeSeries_ = new QLineSeries;
    chart_->addSeries(valueSeries_);
    chart_->addSeries(derivativeSeries_);
    valueSeries_->attachAxis(timeAxis_);
    valueSeries_->attachAxis(valueAxis_);
    derivativeSeries_->attachAxis(timeAxis_);
    derivativeSeries_->attachAxis(derivativeAxis_);
    view_ = new QChartView(chart_);
    view_->setObjectName(QStringLiteral("ExpressionPreview"));
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setFrameShape(QFrame::NoFrame);
    view_->setFixedHeight(kPlotHeight);

    // The preview range, under the plot.
    startBox_ = timeBox(QStringLiteral("PreviewStart"), t0_);
    endBox_ = timeBox(QStringLiteral("PreviewEnd"), t1_);
    rangeRow_ = new QWidget;
    auto* rangeLine = new QHBoxLayout(rangeRow_);
    rangeLine->setContentsMargins(0, 0, 0, 0);
    rangeLine->setSpacing(4);
    rangeLine->addStretch(1);
    rangeLine->addWidget(new QLabel(tr("preview")));
    rangeLine->addWidget(startBox_);
    rangeLine->addWidget(new QLabel(QStringLiteral("–")));
    rangeLine->addWidget(endBox_);
    rangeUnit_ = new QLabel(tr("s"));
    rangeLine->addWidget(rangeUnit_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(edit_);
    layout->addWidget(message_);
    layout->addWidget(view_);
    layout->addWidget(rangeRow_);

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);
    connect(debounce_, &QTimer::timeout, this, &ExpressionEditor::updateDisplay);
    connect(edit_, &QLineEdit::textChanged, this, [this] {
        check();
        debounce_->start();
    });
    connect(edit_, &QLineEdit::editingFinished, this, &ExpressionEditor::finishEditing);
    connect(startBox_, &QDoubleSpinBox::valueChanged, this, [this] { rangeEdited(); });
    connect(endBox_, &QDoubleSpinBox::valueChanged, this, [this] { rangeEdited(); });

    check();
    setUnit(QString());  // names the curves and shows the state
}

void ExpressionEditor::setText(const QString& text) {
    committedText_ = text.trimmed();
    edit_->setText(text);
    edit_->setCursorPosition(0);  // a long expression read from its start, not its tail
    check();                      // textChanged is not emitted when the text is the same
    updateDisplay();              // at once, not after the debounce
}

QString ExpressionEditor::text() const {
    return edit_->text();
}

void ExpressionEditor::setUnit(const QString& unit) {
    unit_ = unit;
    const QString rateUnit = (unit.isEmpty() ? QStringLiteral("1") : unit) + QStringLiteral("/s");
    valueSeries_->setName(unit.isEmpty() ? tr("value") : tr("value [%1]").arg(unit));
    const bool ofTime = variable_ == QLatin1String("time");
    // d/dt [unit/s]; of another variable x, d/dx [unit/its unit], d/dx when neither has one.
    QString derivative = tr("d/dt [%1]").arg(rateUnit);
    if (!ofTime) {
        QString per = unit.isEmpty() ? QString() : unit;
        if (!variableUnit_.isEmpty())
            per = (per.isEmpty() ? QStringLiteral("1") : per) + QStringLiteral("/") + variableUnit_;
        derivative =
            per.isEmpty() ? tr("d/d%1").arg(variable_) : tr("d/d%1 [%2]").arg(variable_, per);
    }
    derivativeSeries_->setName(derivative);
    updateDisplay();
}

void ExpressionEditor::setVariable(const QString& name, const QString& unit, bool plotted) {
    variable_ = name;
    variableUnit_ = unit;
    const bool time = name == QLatin1String("time");
    plotted_ = !time && plotted;
    edit_->setPlaceholderText(time ? tr("e.g. 30d*sin(2*pi*time)")
                                   : tr("e.g. 0.04*cos(%1)").arg(name));
    view_->setVisible(time || plotted_);
    rangeRow_->setVisible(time || plotted_);
    rangeUnit_->setText(time ? tr("s") : unit);
    for (QDoubleSpinBox* box : {startBox_, endBox_}) box->setDecimals(time ? 2 : 4);
    setUnit(unit_);  // the derivative's name: per the variable
    check();
    updateDisplay();
}

void ExpressionEditor::setTables(engine::Expression::Tables tables) {
    tables_ = std::move(tables);
    check();
    updateDisplay();
}

void ExpressionEditor::setCompletions(const QStringList& words) {
    if (!completer_) {
        completer_ = new QCompleter(this);
        completer_->setCaseSensitivity(Qt::CaseInsensitive);
        completer_->setCompletionMode(QCompleter::PopupCompletion);
        completer_->setWidget(edit_);
        connect(completer_, qOverload<const QString&>(&QCompleter::activated), this,
                &ExpressionEditor::insertCompletion);
        connect(edit_, &QLineEdit::textEdited, this, &ExpressionEditor::offerCompletions);
    }
    completer_->setModel(new QStringListModel(words, completer_));
}

QString ExpressionEditor::wordBeforeCursor() const {
    const QString text = edit_->text();
    int start = edit_->cursorPosition();
    while (start > 0 && (text[start - 1].isLetterOrNumber() || text[start - 1] == u'_' ||
                         text[start - 1] == u'.'))
        --start;
    return text.mid(start, edit_->cursorPosition() - start);
}

void ExpressionEditor::offerCompletions() {
    const QString word = wordBeforeCursor();
    // (a number is no name: "0.5" offers nothing)
    if (word.isEmpty() || word[0].isDigit() || word[0] == u'.') {
        completer_->popup()->hide();
        return;
    }
    completer_->setCompletionPrefix(word);
    if (completer_->completionCount() == 0 ||
        (completer_->completionCount() == 1 && completer_->currentCompletion() == word)) {
        completer_->popup()->hide();
        return;
    }
    completer_->complete();
}

void ExpressionEditor::insertCompletion(const QString& word) {
    const QString text = edit_->text();
    const int end = edit_->cursorPosition();
    const int start = end - static_cast<int>(wordBeforeCursor().size());
    edit_->setText(text.left(start) + word + text.mid(end));
    edit_->setCursorPosition(start + static_cast<int>(word.size()));
}

void ExpressionEditor::setStateValue(StateValue value) {
    stateValue_ = std::move(value);
    updateDisplay();
}

void ExpressionEditor::refreshStateValue() {
    if (readsState_) updateDisplay();
}

void ExpressionEditor::setStateParser(StateParser parse) {
    stateParser_ = std::move(parse);
    check();
    updateDisplay();
}

QString ExpressionEditor::at(double value) const {
    const QString name = variable_ == QLatin1String("time") ? QStringLiteral("t") : variable_;
    return variableUnit_.isEmpty()
               ? QStringLiteral("%1 = %2").arg(name, number(value))
               : QStringLiteral("%1 = %2 %3").arg(name, number(value), variableUnit_);
}

void ExpressionEditor::setPreviewRange(double t0, double t1) {
    if (!(t1 > t0) || !std::isfinite(t0) || !std::isfinite(t1)) return;
    if (variable_ != QLatin1String("time") && !plotted_) {  // no boxes: the range as it is
        t0_ = t0;
        t1_ = t1;
        check();
        updateDisplay();
        return;
    }
    {
        const QSignalBlocker blockStart(startBox_), blockEnd(endBox_);
        startBox_->setValue(t0);
        endBox_->setValue(t1);
    }
    rangeEdited();
}

// A start at or past the end (or an end at or before the start) moves the other end so the
// range keeps its width.
void ExpressionEditor::rangeEdited() {
    double t0 = startBox_->value(), t1 = endBox_->value();
    if (!(t1 > t0)) {
        const double width = t1_ - t0_;
        if (t0 != t0_)
            t1 = t0 + width;
        else
            t0 = t1 - width;
        const QSignalBlocker blockStart(startBox_), blockEnd(endBox_);
        startBox_->setValue(t0);
        endBox_->setValue(t1);
        t0 = startBox_->value();
        t1 = endBox_->value();
        if (!(t1 > t0)) {  // clamped at a limit: keep the range shown before
            startBox_->setValue(t0_);
            endBox_->setValue(t1_);
            return;
        }
    }
    t0_ = t0;
    t1_ = t1;
    check();
    updateDisplay();
}

QString ExpressionEditor::message() const {
    return message_->text();
}

bool ExpressionEditor::sample(const engine::Expression& expression, double& badTime,
                              double& badValue) {
    times_.resize(kSamples);
    values_.resize(kSamples);
    derivatives_.resize(kSamples);
    for (int k = 0; k < kSamples; ++k) {
        // t0 + (t1 − t0)·k/(n − 1): both ends and the midpoint land exactly on their times.
        const double t = k == kSamples - 1 ? t1_ : t0_ + (t1_ - t0_) * k / (kSamples - 1);
        const double value = expression.eval(t);
        if (!std::isfinite(value)) {
            badTime = t;
            badValue = value;
            return false;
        }
        const auto i = static_cast<std::size_t>(k);
        times_[i] = t;
        values_[i] = value;
        derivatives_[i] = expression.derivative(t);
    }
    return true;
}

void ExpressionEditor::check() {
    const std::string text = edit_->text().trimmed().toStdString();
    current_.reset();
    error_.clear();
    readsState_ = false;
    double badTime = 0.0, badValue = 0.0;
    const bool ofTime = variable_ == QLatin1String("time");
    if (text.empty()) {
        error_ = ofTime && stateParser_ ? tr("enter an expression of time and the state")
                                        : tr("enter an expression of %1").arg(variable_);
    } else if (stateParser_ && ofTime) {
        // Measures and variables read the state: no value before a run, nothing to sample.
        std::string reason;
        bool readsState = false;
        std::optional<engine::Expression> parsed = stateParser_(text, reason, readsState);
        if (!parsed) {
            error_ = QString::fromStdString(reason);
        } else if (readsState) {
            readsState_ = true;
            current_ = std::move(parsed);
        } else if (!sample(*parsed, badTime, badValue)) {
            error_ = std::isnan(badValue) ? tr("the value is not a number at %1").arg(at(badTime))
                                          : tr("the value is infinite at %1").arg(at(badTime));
        } else {
            current_ = std::move(parsed);
        }
    } else {
        std::string reason;
        // One variable, or two ("u, v": a surface's, checked along the first with the
        // second at 0).
        const QStringList names = variable_.split(QLatin1Char(','), Qt::SkipEmptyParts);
        const std::string first = names.value(0).trimmed().toStdString();
        const std::string second = names.value(1).trimmed().toStdString();
        std::optional<engine::Expression> parsed =
            names.size() > 1
                ? engine::Expression::parse(text, reason, {first.c_str(), second.c_str()})
                : engine::Expression::parse(text, reason, {first.c_str()}, tables_);
        if (!parsed) {
            error_ = QString::fromStdString(reason);
        } else if (!sample(*parsed, badTime, badValue)) {
            error_ = std::isnan(badValue) ? tr("the value is not a number at %1").arg(at(badTime))
                                          : tr("the value is infinite at %1").arg(at(badTime));
        } else {
            current_ = std::move(parsed);
        }
    }
    // Not valid (or not a function of time alone): the preview keeps the curve it shows when
    // it is finite on the range.
    if ((!current_ || readsState_) && !(shown_ && sample(*shown_, badTime, badValue))) {
        times_.clear();
        values_.clear();
        derivatives_.clear();
    }
}

void ExpressionEditor::updateDisplay() {
    debounce_->stop();
    const bool valid = isValid();
    const bool ofTime = variable_ == QLatin1String("time");
    if (valid && !readsState_)
        shown_ = current_;
    else if (times_.empty())
        shown_.reset();
    // An expression of the state has no curve of time to show.
    view_->setVisible((ofTime || plotted_) && !readsState_);
    rangeRow_->setVisible((ofTime || plotted_) && !readsState_);

    // The line under the field: the reason in red, or the value at the start of the range.
    if (valid && readsState_) {
        // The unit is said here, as a value of time says it with its value.
        // Its value at the frame on screen, when there is one.
        std::string reason;
        const std::optional<FrameValue> now =
            stateValue_ ? stateValue_(edit_->text().trimmed().toStdString(), reason) : std::nullopt;
        const QString unit = unit_.isEmpty() ? QString() : QStringLiteral(" ") + unit_;
        if (now)
            message_->setText(tr("= %1%2 at the frame shown (t = %3 s); reads the mechanism's "
                                 "state")
                                  .arg(number(now->value), unit, number(now->time)));
        else
            message_->setText(
                unit_.isEmpty()
                    ? tr("reads the mechanism's state: its value is known as it runs")
                    : tr("in %1; reads the mechanism's state: its value is known as it runs")
                          .arg(unit_));
        message_->setStyleSheet(QString());
        edit_->setStyleSheet(QString());
    } else if (valid) {
        const double value = values_.front();
        QString shown =
            unit_.isEmpty() ? number(value) : QStringLiteral("%1 %2").arg(number(value), unit_);
        if (unit_ == QStringLiteral("rad"))
            shown += QStringLiteral(" (%1°)").arg(number(value * kRadToDeg));
        QString line = tr("%1 at %2").arg(shown, at(times_.front()));
        const QString d = variable_ == QLatin1String("time") ? QStringLiteral("t") : variable_;
        for (std::size_t k = 0; k < derivatives_.size(); ++k)
            if (!std::isfinite(derivatives_[k])) {
                line += tr("; d/d%1 undefined at %2").arg(d, at(times_[k]));
                break;
            }
        message_->setText(line);
        message_->setStyleSheet(QString());
        edit_->setStyleSheet(QString());
    } else {
        message_->setText(error_);
        message_->setStyleSheet(QStringLiteral("color: %1;").arg(kErrorColour));
        edit_->setStyleSheet(
            QStringLiteral("QLineEdit { border: 1px solid %1; border-radius: 2px; padding: 1px; }")
                .arg(kErrorColour));
    }

    // The curves: in colour for a valid text, greyed for the last valid one.
    QList<QPointF> valuePoints, derivativePoints;
    valuePoints.reserve(static_cast<qsizetype>(times_.size()));
    derivativePoints.reserve(static_cast<qsizetype>(times_.size()));
    for (std::size_t k = 0; k < times_.size(); ++k) {
        valuePoints.append(QPointF(times_[k], values_[k]));
        if (std::isfinite(derivatives_[k]))
            derivativePoints.append(QPointF(times_[k], derivatives_[k]));
    }
    valueSeries_->replace(valuePoints);
    derivativeSeries_->replace(derivativePoints);
    QPen valuePen(valid ? kValueColour : kStaleColour, 1.6);
    QPen derivativePen(valid ? kDerivativeColour : kStaleColour, 1.2);
    derivativePen.setStyle(valid ? Qt::SolidLine : Qt::DashLine);
    valueSeries_->setPen(valuePen);
    derivativeSeries_->setPen(derivativePen);
    valueAxis_->setLabelsColor(valuePen.color());
    derivativeAxis_->setLabelsColor(derivativePen.color());
    setAxisRange(timeAxis_, t0_, t1_, 4.0);
    const auto [valueLo, valueHi] = paddedRange(values_);
    setAxisRange(valueAxis_, valueLo, valueHi, 2.0);
    const auto [rateLo, rateHi] = paddedRange(derivatives_);
    setAxisRange(derivativeAxis_, rateLo, rateHi, 2.0);
}

void ExpressionEditor::finishEditing() {
    updateDisplay();  // the reason shows at once, not after the debounce
    const QString text = edit_->text().trimmed();
    if (!isValid() || text == committedText_) return;
    committedText_ = text;
    emit committed(text);
}

}  // namespace ui
