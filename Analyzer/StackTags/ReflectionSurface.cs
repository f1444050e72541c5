namespace EtwSerializerProfiler.Analyzer.StackTags;

/// <summary>One API family of the reflection surface: the tag its frames get, its rank among the families, its methods.</summary>
/// <param name="TagPath">Under <c>Reflection\</c> or <c>Activator\</c>: what the columns and the finding read.</param>
/// <param name="Priority">
/// Only ranks the families against each other, on one frame and within one stack's reflection frames: the API the
/// caller used outranks what it does inside (custom-attribute parsing runs member lookups and type queries). Whether
/// a sample is reflection at all is not a matter of priority: <see cref="StackTagMatcher"/>'s owner rule decides.
/// </param>
internal sealed record ReflectionFamily(string TagPath, int Priority, IReadOnlyList<string> Modules, IReadOnlyList<string> Methods);

/// <summary>
/// The reflection API surface, defined by where the runtime puts it rather than by a list of methods a serializer
/// happened to call: everything in <c>System.Reflection.*</c> (custom-attribute parsing, member infos, invokers,
/// Emit), <c>System.RuntimeType</c> with its nested member caches, <c>System.Type</c>, the runtime handles
/// (<c>RuntimeMethodHandle</c>, <c>RuntimeFieldHandle</c>, <c>RuntimeTypeHandle</c>, <c>ModuleHandle</c>,
/// <c>Signature</c>), <c>System.Attribute</c> and <c>System.Activator</c>, in the core library that implements them
/// (System.Private.CoreLib on .NET, mscorlib on .NET Framework; Emit and DispatchProxy also in their own assemblies).
/// Each family becomes a tag of the generated stack tags file, and the classifier uses the same definition to tell
/// which frames are reflection when it looks for the frame that owns a sample (docs/analyzer.md#attribution).
/// The last families are catch-alls, so no frame of the surface falls through to the caller's tag.
/// </summary>
internal static class ReflectionSurface
{
    public const string ReflectionRoot = "Reflection";
    public const string ActivatorRoot = "Activator";

    public const int CustomAttributePriority = 12;
    public const int ActivatorPriority = 11;
    /// <summary>Field and property access, invoke, Emit: what a serializer calls per member.</summary>
    public const int AccessPriority = 10;
    public const int MemberLookupPriority = 9;
    public const int TypeQueryPriority = 8;
    public const int OtherPriority = 7;

    public const string InterpretedInvokeTag = @"Reflection\Interpreted invoke";

    /// <summary>Where the runtime implements reflection; the methods below only count there (a type of your own named System.Type does not).</summary>
    private static readonly string[] s_coreLib = ["System.Private.CoreLib.*", "mscorlib.*"];

    public static IReadOnlyList<ReflectionFamily> Families { get; } =
    [
        new(@"Reflection\Custom attributes", CustomAttributePriority, s_coreLib,
        [
            "System.Attribute::*",
            "System.Reflection.CustomAttribute*",
            "System.Reflection.RuntimeCustomAttributeData*",
            "System.Reflection.PseudoCustomAttribute*",
            "System.Reflection.*::*CustomAttribute*",
            "System.Reflection.*::IsDefined*",
            "System.RuntimeType::*CustomAttribute*",
            "System.RuntimeType::IsDefined*",
        ]),
        new(@"Activator\CreateInstance", ActivatorPriority, s_coreLib,
        [
            "System.Activator::*",
            "System.RuntimeType::CreateInstance*",
            "System.RuntimeType+ActivatorCache::*",
            "System.RuntimeType+CreateUninitializedCache::*",
            // Object creation without `new` (DataContractSerializer's way); not RuntimeTypeHandle.InternalAlloc,
            // which also boxes FieldInfo.GetValue's results and would charge boxing to Activator.
            "System.Runtime.CompilerServices.RuntimeHelpers::GetUninitializedObject*",
        ]),
        new(@"Reflection\FieldInfo.GetValue", AccessPriority, s_coreLib,
        [
            "System.Reflection.*FieldInfo::GetValue*",
            // .NET 8+ routes FieldInfo.GetValue through FieldAccessor, which the JIT often leaves as the only frame.
            "System.Reflection.FieldAccessor::GetValue*",
            "System.RuntimeFieldHandle::GetValue*",
        ]),
        new(@"Reflection\FieldInfo.SetValue", AccessPriority, s_coreLib,
        [
            "System.Reflection.*FieldInfo::SetValue*",
            "System.Reflection.FieldAccessor::SetValue*",
            "System.RuntimeFieldHandle::SetValue*",
        ]),
        new(@"Reflection\PropertyInfo", AccessPriority, s_coreLib,
        [
            "System.Reflection.*PropertyInfo::GetValue*",
            "System.Reflection.*PropertyInfo::SetValue*",
        ]),
        // The invoke machinery itself where no emitted stub exists (dynamic code off, or the first calls): on .NET 8+
        // PropertyInfo.Get/SetValue, MethodInfo.Invoke and ConstructorInfo.Invoke end in these frames.
        new(InterpretedInvokeTag, AccessPriority, s_coreLib,
        [
            "System.Reflection.MethodBaseInvoker::InterpretedInvoke*",
            "System.RuntimeMethodHandle::InvokeMethod*",
        ]),
        new(@"Reflection\Invoke", AccessPriority, s_coreLib,
        [
            "System.Reflection.*MethodInfo::Invoke*",
            "System.Reflection.*MethodBase::Invoke*",
            "System.Reflection.*ConstructorInfo::Invoke*",
            "System.Reflection.MethodBaseInvoker*",
            "System.Reflection.MethodInvoker*",
            "System.Reflection.ConstructorInvoker*",
            "System.Reflection.InvokeUtils*",
            "System.Reflection.InvokerEmitUtil*",
        ]),
        // The stubs .NET 8+ emits for MethodInfo.Invoke are dynamic methods, in no module the trace names.
        new(@"Reflection\Invoke", AccessPriority, ["*"], ["InvokeStub_*"]),
        new(@"Reflection\Emit (code generation)", AccessPriority, [.. s_coreLib, "System.Reflection.Emit*"],
        [
            "System.Reflection.Emit.*",
        ]),
        new(@"Reflection\Member lookup", MemberLookupPriority, s_coreLib,
        [
            "System.RuntimeType+RuntimeTypeCache*",
            "System.RuntimeType::Get*Member*", "System.RuntimeType::GetMethod*", "System.RuntimeType::GetProperty*",
            "System.RuntimeType::GetProperties*", "System.RuntimeType::GetField*", "System.RuntimeType::GetConstructor*",
            "System.RuntimeType::GetEvent*", "System.RuntimeType::GetInterface*", "System.RuntimeType::GetNestedType*",
            "System.RuntimeType::Get*Candidates*", "System.RuntimeType::FilterApply*",
            "System.Type::Get*Member*", "System.Type::GetMethod*", "System.Type::GetProperty*", "System.Type::GetProperties*",
            "System.Type::GetField*", "System.Type::GetConstructor*", "System.Type::GetEvent*", "System.Type::GetInterface*",
            "System.Reflection.*PropertyInfo::Get*Method*", "System.Reflection.*PropertyInfo::GetAccessors*",
            "System.Reflection.*PropertyInfo::GetIndexParameters*", "System.Reflection.*::GetParameters*",
            "System.Reflection.RuntimeParameterInfo*", "System.Reflection.Associates*",
            "System.Reflection.RuntimeReflectionExtensions*", "System.Reflection.TypeInfo::GetDeclared*",
            "System.Reflection.TypeInfo::get_Declared*",
        ]),
        new(@"Reflection\Type queries", TypeQueryPriority, s_coreLib,
        [
            "System.RuntimeType::*",
            "System.Type::*",
            "System.RuntimeTypeHandle*",
            "System.Nullable::GetUnderlyingType*",
        ]),
        // Catch-all: the rest of the namespace and of the types that implement it.
        new(@"Reflection\Other", OtherPriority, [.. s_coreLib, "System.Reflection.DispatchProxy*"],
        [
            "System.Reflection.*",
            "System.RuntimeType+*",
            "System.RuntimeMethodHandle*",
            "System.RuntimeFieldHandle*",
            "System.ModuleHandle*",
            "System.Signature*",
            "System.RuntimeMethodInfoStub*",
            "System.RuntimeFieldInfoStub*",
        ]),
    ];

    /// <summary>True for the tags the Reflection and Activator columns and the reflection finding add up.</summary>
    public static bool IsReflectionTag(string tagPath) =>
        IsUnder(tagPath, ReflectionRoot) || IsUnder(tagPath, ActivatorRoot);

    private static bool IsUnder(string tag, string root) =>
        tag == root || (tag.Length > root.Length && tag[root.Length] == '\\' && tag.StartsWith(root, StringComparison.Ordinal));
}
