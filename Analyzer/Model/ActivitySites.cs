using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// The code behind an event: its frame's module and method as outputs show them (<see cref="StackFrame.ModuleName"/>,
/// <see cref="StackFrame.MethodName"/>) and, for a thread over the whole trace, the stack tag of its stack (null in a
/// run's counters: a run is one serializer's code). Outputs write <see cref="Name"/> (Model/SiteText); code that
/// asks what the code is reads <see cref="Method"/>, so nothing parses a name back.
/// </summary>
public sealed record CodeSite(string Module, string Method, string? Tag)
{
    /// <summary>The frame of an event whose stack names nothing.</summary>
    public static readonly StackFrame UnknownFrame = new(StackFrame.Unresolved, StackFrame.Unresolved);

    /// <summary>
    /// A site at a frame as the trace names it, made the way outputs show it (the module without its path and
    /// extension, the method without its signature): two spellings of one method are one site, as they are one name.
    /// </summary>
    public static CodeSite At(StackFrame frame, string? tag = null) =>
        frame == UnknownFrame ? new(StackFrame.Unresolved, StackFrame.Unresolved, tag) : new(frame.ModuleName, frame.MethodName, tag);

    /// <summary>"Module!Type.Method", or "?" for <see cref="UnknownFrame"/>.</summary>
    public string Name => Module == StackFrame.Unresolved && Method == StackFrame.Unresolved ? StackFrame.Unresolved : Module + "!" + Method;

    public CodeSite WithoutTag() => this with { Tag = null };
}

/// <summary>Where an exception was thrown: its type and the throwing code.</summary>
public sealed record ExceptionSite(string Type, CodeSite Thrower)
{
    public ExceptionSite(string type, StackFrame frame, string? tag = null) : this(type, CodeSite.At(frame, tag)) { }

    /// <summary>The thrower's <see cref="CodeSite.Name"/>.</summary>
    public string Frame => Thrower.Name;

    public ExceptionSite WithoutTag() => this with { Thrower = Thrower.WithoutTag() };
}
