#pragma once
// An editor for a user expression of `time` (a motion, a force component, a controller's
// target): a line edit parsed as the user types, the reason under it when the text does not
// parse or is not finite on the preview range (red, with a red frame), otherwise its value at
// the start of the range; and a small plot of the value and its time derivative over a range
// [t0, t1] the user sets (default 0 to 2 s). Values are in the caller's unit (SI: "rad", "m",
// "N"); the derivative's unit gets "/s".
//
// The text is checked on every keystroke (a few hundred evaluations: cheap), so isValid() and
// error() always describe the text shown; the message, frame and plot follow 150 ms after the
// last keystroke so typing stays fluid. While the text is invalid the plot keeps the last
// valid curve it showed, greyed. Only a valid text that differs from the last one set or
// committed is committed (Return or focus out); an invalid one stays in the field with its
// reason.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <QString>
#include <QWidget>

#include "engine/expr/expression.h"

class QChart;
class QCompleter;
class QChartView;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QLineSeries;
class QTimer;
class QValueAxis;

namespace ui {

class ExpressionEditor : public QWidget {
    Q_OBJECT

public:
    static constexpr int kSamples = 201;  // preview samples, both ends included

    explicit ExpressionEditor(QWidget* parent = nullptr);

    // Shows `text` as the committed expression; emits nothing.
    void setText(const QString& text);
    QString text() const;
    // "rad", "m", "N", ... (empty: no unit); the derivative is shown in unit + "/s".
    void setUnit(const QString& unit);
    QString unit() const { return unit_; }

    // The expression's variable and its unit: `time` in s unless set. An expression of another
    // variable (a curve's x(s)) is checked on the preview range as one of time is, and says its
    // value at the range's start under the field, without the plot unless `plotted` (a table's
    // curve over its x: the plot and the range's boxes in the variable's unit).
    void setVariable(const QString& name, const QString& unit, bool plotted = false);
    // The scene's tables, read by name in an expression of another variable than time (an
    // expression of time gets them from its parser, setStateParser).
    void setTables(engine::Expression::Tables tables);
    const QString& variable() const { return variable_; }

    // An expression of time and of the mechanism's state (a force's: measures such as
    // DM(a.m, b.m) and the scene's variables): `parse` parses the text, or says why not, and
    // says whether it reads the state. One that does has no value before a run: it is said so
    // under the field, without the plot; one of time alone is checked and plotted as before.
    using StateParser = std::function<std::optional<engine::Expression>(
        const std::string& text, std::string& error, bool& readsState)>;
    void setStateParser(StateParser parse);
    // The value of an expression of the state at the frame on screen, and that frame's time:
    // said under the field instead of "known as it runs" (nullopt: no frame, or the reason in
    // the error, said in grey).
    struct FrameValue {
        double value = 0.0;
        double time = 0.0;
    };
    using StateValue =
        std::function<std::optional<FrameValue>(const std::string& text, std::string& error)>;
    void setStateValue(StateValue value);
    // The frame on screen changed: the value under the field follows.
    void refreshStateValue();
    // Names offered as the user types one (measures as "DM(", helpers, the scene's variables,
    // parts, markers as "part.marker", joints): a popup of those starting with the word before
    // the cursor (any case), the one picked replacing that word.
    void setCompletions(const QStringList& words);
    QCompleter* completer() const { return completer_; }

    // The text reads the mechanism's state (valid, not plotted).
    bool readsState() const { return readsState_; }

    // The preview range [s]; t1 > t0 (a range that is not is ignored).
    void setPreviewRange(double t0, double t1);
    double previewStart() const { return t0_; }
    double previewEnd() const { return t1_; }

    // The text parses and its value is finite at every preview sample.
    bool isValid() const { return error_.isEmpty(); }
    QString error() const { return error_; }  // empty when valid
    QString message() const;                  // what the line under the field shows
    QLineEdit* lineEdit() const { return edit_; }

    // The curve in the preview, kSamples points from t0 to t1: of the text when it is valid,
    // else of the valid text the plot showed last, when it is finite on the range (shown
    // greyed; a valid text passed while typing, like "2" on the way to "2*time", is not one
    // unless the typing paused on it), else empty.
    // A derivative is NaN where it cannot be computed (e.g. sqrt(time) at 0); it is not plotted.
    const std::vector<double>& previewTimes() const { return times_; }
    const std::vector<double>& previewValues() const { return values_; }
    const std::vector<double>& previewDerivatives() const { return derivatives_; }

signals:
    // A valid text, trimmed, different from the last one set or committed.
    void committed(const QString& text);

private:
    void check();          // parses and samples the text; updates the state, not the display
    void updateDisplay();  // message, frame and plot from the state
    void finishEditing();
    QString wordBeforeCursor() const;  // letters, digits, '_' and '.' up to the cursor
    void offerCompletions();
    void insertCompletion(const QString& word);
    void rangeEdited();
    // Samples `expression` on the range; false (and `badTime`) at the first non-finite value.
    bool sample(const engine::Expression& expression, double& badTime, double& badValue);

    // The variable's name in messages ("t" for time) with its unit, as " s".
    QString at(double value) const;

    QString unit_;
    QString variable_ = QStringLiteral("time");
    QString variableUnit_ = QStringLiteral("s");
    double t0_ = 0.0;
    double t1_ = 2.0;
    QString committedText_;
    QString error_;
    StateParser stateParser_;
    StateValue stateValue_;
    QCompleter* completer_ = nullptr;
    bool readsState_ = false;
    std::optional<engine::Expression> current_;  // the text's, when valid
    std::optional<engine::Expression> shown_;    // the plotted one: the latest valid text displayed
    std::vector<double> times_, values_, derivatives_;

    QLineEdit* edit_;
    QLabel* message_;
    QLabel* rangeUnit_ = nullptr;
    bool plotted_ = false;
    engine::Expression::Tables tables_;
    QChart* chart_;
    QChartView* view_;
    QValueAxis* timeAxis_;
    QValueAxis* valueAxis_;
    QValueAxis* derivativeAxis_;
    QLineSeries* valueSeries_;
    QLineSeries* derivativeSeries_;
    QDoubleSpinBox* startBox_;
    QDoubleSpinBox* endBox_;
    QWidget* rangeRow_;
    QTimer* debounce_;
};

}  // namespace ui
