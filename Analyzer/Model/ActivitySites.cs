namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// The code behind an event: its frame as the analyzer names frames ("Module!Type.Method", "?" when unknown) and, for a
/// thread over the whole trace, the stack tag of its stack (null in a run's counters: a run is one serializer's code).
/// Outputs format it (Output/SiteText); nothing parses it back.
/// </summary>
public readonly record struct CodeSite(string Frame, string? Tag)
{
    public CodeSite WithoutTag() => this with { Tag = null };
}

/// <summary>Where an exception was thrown: its type and the throwing code.</summary>
public readonly record struct ExceptionSite(string Type, CodeSite Thrower)
{
    public ExceptionSite(string type, string frame, string? tag = null) : this(type, new CodeSite(frame, tag)) { }

    public string Frame => Thrower.Frame;

    public ExceptionSite WithoutTag() => this with { Thrower = Thrower.WithoutTag() };
}
