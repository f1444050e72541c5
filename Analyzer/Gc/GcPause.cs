using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Gc;

/// <summary>
/// One GC pause as <see cref="RuntimeSuspensions.RestartStop"/> ends it: start to the restart's end, with its suspending
/// part (to SuspendEEStop) and restarting part (from RestartEEStart) where their events came.
/// </summary>
internal readonly record struct GcPause(Interval Pause, Interval? Suspending, Interval? Restarting);
