using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Stacks;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// Where managed code lives, with its tier (loads and the end rundown): samples are given theirs at the end, when all
/// of it is known, and the kernel session's frames their names. Sites named from stacks wait here for it in a raw pass.
/// </summary>
internal sealed class ManagedCodeStage : IPassStage
{
    private readonly ManagedCodeMap.Builder _builder = new();
    private ManagedCodeMap? _map;
    /// <summary>
    /// Sites named from stacks (exceptions, lock waits) are counted once the code map names them: at once when it is
    /// known before the pass (TraceLog's), at the end for a raw EventPipe pass, whose rundown comes last; in event
    /// order either way, with the run and thread found at the event.
    /// </summary>
    private readonly List<Action> _untilNamed = [];
    private bool _rawPass;

    /// <summary>The managed code map, once the pass is over.</summary>
    public ManagedCodeMap Code => _map ??= _builder.Build();

    public void Subscribe(TraceEventDispatcher source, IPass pass)
    {
        var stacks = pass.Stacks;
        _rawPass = stacks.NamedAfterPass;
        _builder.Subscribe(source, _rawPass ? stacks.Loaded : null);
    }

    public void WhenNamed(Action count)
    {
        if (_rawPass) _untilNamed.Add(count);
        else count();
    }

    /// <summary>The code map is complete: the sites waiting for it are counted.</summary>
    public void CountNamedSites()
    {
        foreach (var count in _untilNamed) count();
        _untilNamed.Clear();
    }
}
