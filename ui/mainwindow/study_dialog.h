#pragma once
// The study table (Design Variables ▸ Study…): a table of cases, one row per case and one
// column per design variable, run by `motus-cli batch` — the same program, the same files —
// on every core, in the background; then the summary table (each case's values, outcome and
// the chosen result's min, max, peak and final value) and a plot of a chosen statistic of the
// result against a chosen variable. The scene run is the document as it is on screen (unsaved
// edits included). Cancel stops the study between cases and keeps what ran.

#include <memory>

#include <QDialog>
#include <QList>
#include <QString>
#include <QStringList>

class QTableWidget;

namespace ui {

class SceneDocument;

class StudyDialog : public QDialog {
    Q_OBJECT

public:
    StudyDialog(SceneDocument* document, QWidget* parent = nullptr);
    ~StudyDialog() override;

    // A table for the scene's design variables: the first one from its minimum to its maximum
    // in five steps, the others at their values (kept when the variables are as before).
    void prepare();
    // The cases: one name and one value per design variable (in the scene's order) per row.
    void setCases(const QList<QPair<QString, QStringList>>& cases);
    // "simulate", "kinematics", "inverse", "statics" or "modes"; the duration of timed ones.
    void setAnalysis(const QString& analysis, double duration);
    // The channel summarised ("crankPin.|F|") and the statistic plotted ("peak", "max", "min",
    // "final") against `variable`.
    void setResult(const QString& channel, const QString& statistic,
                   const QString& variable = QString());

    // Starts the study; false with status() saying why when it cannot start.
    bool run();
    bool isRunning() const;
    void cancel();
    QString status() const;
    // The last study's summary.csv as motus-cli batch wrote it.
    QString summary() const;
    QTableWidget* casesTable() const;
    QTableWidget* summaryTable() const;
    int plottedPoints() const;

signals:
    void studyFinished(bool ok);

private:
    void finishedRun(int exitCode);
    void showSummary();
    void plot();

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ui
