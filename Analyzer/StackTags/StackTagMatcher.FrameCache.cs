using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Analyzer.StackTags;

internal sealed partial class StackTagMatcher
{
    /// <summary>
    /// One thread's frame matches by name instance: the frame namers hand out one (module, method) pair of strings
    /// per frame, so a stack's frames are found by reference, without hashing their text. A table of this class's own
    /// (open addressing over plain arrays) and one per thread: it is looked up once per frame of every distinct stack,
    /// about a million times on a large trace. A framework dictionary keyed by a value tuple would run as tier-0 JIT
    /// code for most of a short-lived process (an instantiation no ReadyToRun image holds), and a concurrent one
    /// would add its locks; this class is precompiled with esp. Capped like the shared cache behind it: callers that
    /// make new strings for every frame cost only the content lookup.
    /// </summary>
    private sealed class FrameCache
    {
        private const int MaxEntries = 1 << 18;
        private string?[] _modules = new string?[1024];
        private string?[] _methods = new string?[1024];
        private FrameMatch[] _matches = new FrameMatch[1024];
        private int _count;

        public bool TryGet(string module, string method, out FrameMatch match)
        {
            var mask = _modules.Length - 1;
            for (var i = Hash(module, method) & mask; ; i = (i + 1) & mask)
            {
                var m = _modules[i];
                if (m is null) break;
                if (ReferenceEquals(m, module) && ReferenceEquals(_methods[i], method))
                {
                    match = _matches[i];
                    return true;
                }
            }
            match = default;
            return false;
        }

        public void Add(string module, string method, FrameMatch match)
        {
            if (_count >= MaxEntries) return;
            if (2 * (_count + 1) > _modules.Length) Grow();
            Insert(module, method, match);
            _count++;
        }

        private void Insert(string module, string method, FrameMatch match)
        {
            var mask = _modules.Length - 1;
            var i = Hash(module, method) & mask;
            while (_modules[i] is { } m && !(ReferenceEquals(m, module) && ReferenceEquals(_methods[i], method))) i = (i + 1) & mask;
            _modules[i] = module;
            _methods[i] = method;
            _matches[i] = match;
        }

        private void Grow()
        {
            var (modules, methods, matches) = (_modules, _methods, _matches);
            _modules = new string?[modules.Length * 2];
            _methods = new string?[modules.Length * 2];
            _matches = new FrameMatch[modules.Length * 2];
            for (var i = 0; i < modules.Length; i++)
                if (modules[i] is { } module) Insert(module, methods[i]!, matches[i]);
        }

        private static int Hash(string module, string method) =>
            (RuntimeHelpers.GetHashCode(module) * 31 + RuntimeHelpers.GetHashCode(method)) & int.MaxValue;
    }
}
