using System.Diagnostics.Tracing;
using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Etw;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.RunMarkers;
using Microsoft.Diagnostics.Tracing.Parsers;

namespace EtwSerializerProfiler.Tests.Recorder.Etw;

/// <summary>What `esp record --backend etw` would enable, checked here because ETW itself cannot run on Linux.</summary>
public sealed class EtwSessionPlanTests
{
    private static readonly string Session = EtwSessionNames.ForRecording(4242);

    private static EtwSessionPlan Default(EtwSessionLayout layout = EtwSessionLayout.Combined) =>
        EtwSessionPlan.For(ProfileCatalog.Get("default"), Session, layout);

    [Fact]
    public void Default_profile_enables_the_kernel_groups_and_stacks_it_lists()
    {
        var plan = Default();
        Assert.Equal("EtwSerializerProfiler-4242", plan.SessionName);
        Assert.Equal(plan.SessionName, plan.KernelSessionName);
        Assert.Equal(
            KernelTraceEventParser.Keywords.Process | KernelTraceEventParser.Keywords.Thread | KernelTraceEventParser.Keywords.ImageLoad
            | KernelTraceEventParser.Keywords.Profile | KernelTraceEventParser.Keywords.ContextSwitch | KernelTraceEventParser.Keywords.Dispatcher,
            plan.KernelKeywords);
        // ReadyThread stacks ride on the dispatcher keyword: there is no separate ReadyThread kernel keyword.
        Assert.Equal(KernelTraceEventParser.Keywords.Profile | KernelTraceEventParser.Keywords.ContextSwitch | KernelTraceEventParser.Keywords.Dispatcher, plan.KernelStackKeywords);
        Assert.Equal(["PROC_THREAD", "LOADER", "PROFILE", "CSWITCH", "DISPATCHER"], plan.XperfKernelGroups);
        Assert.Equal(["Profile", "CSwitch", "ReadyThread"], plan.StackwalkNames);
        Assert.Equal(1.0, plan.CpuSampleIntervalMs);
    }

    [Fact]
    public void Clr_provider_gets_the_profile_keywords_level_and_per_event_filters()
    {
        var clr = Assert.Single(Default().Providers, p => p.Name == KeywordNames.ClrProvider);
        Assert.Equal(new Guid("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"), clr.Guid);
        Assert.Equal(0x1UL | 0x8 | 0x10 | 0x8000 | 0x4000 | 0x8000000000 | 0x40000000000, clr.Keywords);
        Assert.Equal(EventLevel.Verbose, clr.Level);
        Assert.Equal([1, 10, 80, 81], clr.StackEventIds);
        Assert.Equal([5, 23, 33, 38, 39, 40, 41, 82, 86], clr.DisabledEventIds);

        var options = clr.ToProviderOptions();
        Assert.False(options.StacksEnabled); // stacks come from the id filter only, never for every event
        Assert.Equal([1, 10, 80, 81], options.EventIDStacksToEnable);
        Assert.Equal([5, 23, 33, 38, 39, 40, 41, 82, 86], options.EventIDsToDisable);
        Assert.Null(options.EventIDsToEnable);
    }

    [Fact]
    public void An_empty_stack_list_is_null_so_TraceEvent_does_not_turn_stacks_on_for_every_event()
    {
        var clr = Assert.Single(EtwSessionPlan.For(ProfileCatalog.Get("gc"), Session).Providers, p => p.Name == KeywordNames.ClrProvider);
        Assert.Empty(clr.StackEventIds);
        Assert.Null(clr.ToProviderOptions().EventIDStacksToEnable);
        Assert.Equal([10, 33, 38, 39, 40, 41], clr.ToProviderOptions().EventIDsToDisable);
    }

    [Fact]
    public void Run_event_source_is_enabled_by_the_guid_EventSource_itself_registers()
    {
        var runs = Assert.Single(Default().Providers, p => p.Name == RunEvents.ProviderName);
        Assert.Equal(EventSource.GetGuid(typeof(RunEventSource)), runs.Guid);
        Assert.Equal(RunEvents.ProviderGuid, runs.Guid);
        Assert.Equal(ulong.MaxValue, runs.Keywords);
        Assert.Equal(EventLevel.Informational, runs.Level);
        Assert.Null(runs.ToProviderOptions().EventIDStacksToEnable);
    }

    [Fact]
    public void EventPipe_only_providers_are_skipped_and_rundown_comes_last()
    {
        var plan = Default();
        Assert.DoesNotContain(plan.Providers, p => p.Name == KeywordNames.SampleProfilerProvider);
        Assert.Equal([KeywordNames.SampleProfilerProvider], plan.SkippedProviders);
        Assert.Equal([KeywordNames.ClrProvider, RunEvents.ProviderName, BdnEngineEvents.ProviderName], plan.Providers.Select(p => p.Name));
        Assert.Equal(new Guid("a669021c-c450-4609-a035-5af59af4df18"), plan.Rundown.Guid);
        Assert.Equal(0x8UL | 0x10 | 0x20 | 0x80 | 0x100, plan.Rundown.Keywords);
    }

    [Fact]
    public void The_recorder_always_uses_one_combined_session_and_only_the_scripts_use_the_NT_Kernel_Logger()
    {
        // .NET 10 runs on no Windows older than 10 / Server 2012: a split-session path for Windows 7 could never run.
        var recording = EtwSessionPlan.ForRecording(ProfileCatalog.Get("default"), 4242);
        Assert.Equal(EtwSessionLayout.Combined, recording.Layout);
        Assert.Equal(Session, recording.SessionName);
        Assert.Equal(Session, recording.KernelSessionName);
        Assert.Equal([EtwSessionLayout.Combined, EtwSessionLayout.KernelLoggerAndUserSession], Enum.GetValues<EtwSessionLayout>());
        Assert.Null(typeof(EtwSessionPlan).GetMethod("LayoutFor"));
        var scripts = EtwSerializerProfiler.Recorder.Scripts.WindowsToolFiles.PlanFor(ProfileCatalog.Get("default"));
        Assert.Equal(EtwSessionLayout.KernelLoggerAndUserSession, scripts.Layout);
        Assert.Equal("NT Kernel Logger", scripts.KernelSessionName);
    }

    [Fact]
    public void Rundown_is_asked_of_the_recorded_process_only()
    {
        var options = Default().RundownOptions(31337);
        Assert.Equal([31337], options.ProcessIDFilter);
        // No stacks and no other filters: the rundown is names, not events to sample.
        Assert.False(options.StacksEnabled);
        Assert.Null(options.EventIDStacksToEnable);
        Assert.Null(options.EventIDsToDisable);
        Assert.Null(options.ProcessNameFilter);
    }

    [Fact]
    public void Sampling_interval_comes_from_the_profile_with_a_10_ms_option_for_long_sessions()
    {
        var profile = ProfileCatalog.Get("default") with { CpuSamplingMs = 0 };
        Assert.Equal(EtwSessionPlan.DefaultCpuSampleIntervalMs, EtwSessionPlan.For(profile, Session).CpuSampleIntervalMs);
        Assert.Equal(10.0, EtwSessionPlan.For(profile, Session, cpuSampleIntervalMs: EtwSessionPlan.LongSessionCpuSampleIntervalMs).CpuSampleIntervalMs);
        Assert.Equal(10.0, EtwSessionPlan.For(ProfileCatalog.Get("default") with { CpuSamplingMs = 10 }, Session).CpuSampleIntervalMs);
        // No Profile kernel keyword, no samples: the gc profile records no CPU.
        Assert.Null(EtwSessionPlan.For(ProfileCatalog.Get("gc"), Session).CpuSampleIntervalMs);
        Assert.Throws<UsageException>(() => EtwSessionPlan.For(profile, Session, cpuSampleIntervalMs: 0.01));
    }

    [Fact]
    public void Stacks_without_their_events_and_unknown_names_are_profile_errors()
    {
        var noDispatcher = ProfileCatalog.Get("default") with
        {
            Kernel = new KernelSpec { Keywords = ["Process", "Thread", "ContextSwitch"], Stacks = ["ReadyThread"] },
        };
        var ex = Assert.Throws<UsageException>(() => EtwSessionPlan.For(noDispatcher, Session));
        Assert.Contains("Dispatcher", ex.Message, StringComparison.Ordinal);
        var typo = ProfileCatalog.Get("default") with { Kernel = new KernelSpec { Keywords = ["Proces"] } };
        Assert.Throws<UsageException>(() => EtwSessionPlan.For(typo, Session));
        Assert.Throws<ArgumentException>(() => EtwSessionPlan.For(ProfileCatalog.Get("default"), "MySession"));
    }

    [Fact]
    public void Cleanup_stops_only_sessions_with_the_tool_prefix()
    {
        var ours = EtwSessionNames.Ours(["NT Kernel Logger", "EtwSerializerProfiler-12", "Circular Kernel Context Logger", "EtwSerializerProfiler-Script", "MyEtwSerializerProfiler-1"]);
        Assert.Equal(["EtwSerializerProfiler-12", "EtwSerializerProfiler-Script"], ours);
    }

    [Fact]
    public void Manifest_records_backend_kernel_flags_sampling_and_sessions()
    {
        var plan = Default(EtwSessionLayout.KernelLoggerAndUserSession);
        var baseManifest = new TraceManifest
        {
            RecorderVersion = "0", Backend = "eventpipe", Profile = "default", ProfileDescription = "", Providers = [], CommandLine = "x",
            RecorderRuntime = "", OperatingSystem = "", StartTimeUtc = DateTime.UnixEpoch,
        };
        var m = EtwManifest.Apply(baseManifest, plan);
        Assert.Equal("etw", m.Backend);
        Assert.Equal(["Process", "Thread", "ImageLoad", "Profile", "ContextSwitch", "Dispatcher"], m.KernelKeywords);
        Assert.Equal("0x1000817", m.KernelFlags);
        Assert.Equal(["Profile", "ContextSwitch", "ReadyThread"], m.KernelStacks);
        Assert.Equal(1.0, m.CpuSamplingMs);
        Assert.Equal(["NT Kernel Logger", Session], m.EtwSessions);
        Assert.Equal(TraceFolderLayout.Etl, m.TraceFile);
        Assert.Equal([Session], EtwManifest.Apply(baseManifest, EtwSessionPlan.ForRecording(ProfileCatalog.Get("default"), 4242)).EtwSessions);
        Assert.Equal("0x4800000C019", m.Providers.Single(p => p.Name == KeywordNames.ClrProvider).Keywords);
    }
}
