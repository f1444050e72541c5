namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One library's CPU over a trace without runs: a module or a namespace. Inclusive: the samples with it anywhere on
/// their stack (each counted once); exclusive: the samples whose leaf is in it.
/// </summary>
public sealed record LibraryCpu(string Name, double InclusiveMs, double ExclusiveMs);
